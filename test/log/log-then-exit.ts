// Logs through the service's standard output in two turns, then ends as argv[2] says.
import { createLogger, standardOutput } from "../../lib/log/index.ts";

const logger = createLogger("info", await standardOutput());
const lines = Number(process.argv[3]);
const end = process.argv[2];
const log = (from: number, to: number) => {
	for (let i = from; i < to; i++) logger.info({ i }, "line");
};
log(0, lines / 2);
setTimeout(() => {
	log(lines / 2, lines);
	if (end === "exit") process.exit(3);
	if (end === "throw") throw new Error("thrown after logging");
}, 20);

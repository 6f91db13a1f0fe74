import pino from "pino";
import type { LogDestination, Logger } from "./logger.ts";

/** What the access line of one answer says. */
export interface AccessFields {
	method: string;
	/** The route pattern, never the path. */
	route: string;
	status: number;
	requestId: string;
	durationMs: number;
	/** The client's network, never its address. */
	client: string;
}

const INFO = 30;

interface SheddableDestination {
	writeSheddable(line: string): void;
}

function isSheddable(destination: LogDestination): destination is LogDestination & SheddableDestination {
	return typeof (destination as Partial<SheddableDestination>).writeSheddable === "function";
}
// Request ids and client networks need no escaping in JSON; anything else gets JSON.stringify.
const PLAIN = /^[\w.:/-]*$/;
const jsonString = (text: string) => (PLAIN.test(text) ? `"${text}"` : JSON.stringify(text));
// One head per method, status and route: a few dozen; a client cannot grow it past this.
const MAX_HEADS = 256;

/**
 * The access log: writes each answer's line to the logger's destination as
 * exactly the JSON pino writes for
 * `logger.child({ method, route, status }).info({ req_id, duration_ms, client }, "request")`
 * with createLogger's options (test/log/access-line.test.ts holds the two
 * equal). Through pino's general serialiser the access log cost 6–11 % of
 * the throughput of a cached answer (LOG_LEVEL=info against silent, as
 * bench/http.ts measures it); through this template of known fields, 5 %.
 * Every other line goes through pino itself.
 *
 * Null when the logger's level leaves access lines out.
 */
export function accessLineWriter(logger: Logger): ((fields: AccessFields) => void) | null {
	if (logger.levelVal > INFO) return null;
	const destination = (logger as unknown as Record<symbol, LogDestination>)[pino.symbols.streamSym];
	if (destination === undefined) throw new Error("the logger has no destination stream");
	// Access lines are the ones to drop when standard output stalls (TurnBatchedOutput).
	const write = isSheddable(destination)
		? (line: string) => destination.writeSheddable(line)
		: (line: string) => destination.write(line);
	const heads = new Map<string, string>();
	const headOf = (method: string, route: string, status: number): string => {
		const key = `${method} ${status} ${route}`;
		let head = heads.get(key);
		if (head === undefined) {
			head = `,"method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${status}`;
			if (heads.size < MAX_HEADS) heads.set(key, head);
		}
		return head;
	};
	// Lines of one millisecond share their time text: under load, dozens of them.
	let timeMs = 0;
	let timeText = "";
	return (fields) => {
		const now = Date.now();
		if (now !== timeMs) {
			timeMs = now;
			timeText = new Date(now).toISOString();
		}
		const head = headOf(fields.method, fields.route, fields.status);
		write(
			`{"level":"info","time":"${timeText}"${head},"req_id":${jsonString(fields.requestId)},"duration_ms":${Number.isFinite(fields.durationMs) ? fields.durationMs : null},"client":${jsonString(fields.client)},"msg":"request"}\n`,
		);
	};
}

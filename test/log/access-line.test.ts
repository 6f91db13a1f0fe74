import { expect, test } from "bun:test";
import fc from "fast-check";
import { accessLineWriter, createLogger } from "../../lib/log/index.ts";

// The access line is written without pino's serialiser; it must stay the very
// text pino would write for the same fields, bar the clock.

const TIME = /"time":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"/;

function captured(level: "info" | "warn" = "info") {
	const lines: string[] = [];
	const logger = createLogger(level, { write: (line: string) => lines.push(line) });
	return { logger, lines };
}

const withoutTime = (line: string | undefined) => line?.replace(TIME, '"time":"T"');

const fields = fc.record({
	method: fc.oneof(
		fc.constantFrom("GET", "HEAD", "OPTIONS", "DELETE"),
		fc.string({ unit: "grapheme-ascii" }),
	),
	route: fc.oneof(fc.constantFrom("/api/faxes", "/api/faxes/:slug", "none"), fc.string({ unit: "binary" })),
	status: fc.integer({ min: 100, max: 599 }),
	requestId: fc.oneof(fc.uuid(), fc.string({ unit: "binary" })),
	durationMs: fc.oneof(
		fc.double({ min: 0, max: 1e6, noNaN: true }).map((ms) => Math.round(ms * 1000) / 1000),
		fc.constantFrom(0, Number.NaN, Number.POSITIVE_INFINITY),
	),
	client: fc.oneof(fc.constantFrom("127.0.0.0/24", "2001:db8:1::/48"), fc.string({ unit: "binary" })),
});

test("property: each access line is the text pino writes for the same fields", () => {
	const ours = captured();
	const pinos = captured();
	const write = accessLineWriter(ours.logger);
	fc.assert(
		fc.property(fields, (answer) => {
			write?.(answer);
			pinos.logger
				.child({ method: answer.method, route: answer.route, status: answer.status })
				.info({ req_id: answer.requestId, duration_ms: answer.durationMs, client: answer.client }, "request");
			const [line, expected] = [ours.lines.pop(), pinos.lines.pop()];
			expect(withoutTime(line)).toBe(withoutTime(expected) ?? "");
			expect(Math.abs(Date.parse(TIME.exec(line ?? "")?.[1] ?? "") - Date.now())).toBeLessThan(5_000);
		}),
		{ numRuns: 2_000 },
	);
});

test("no writer when the level leaves access lines out", () => {
	expect(accessLineWriter(captured("warn").logger)).toBeNull();
	expect(typeof accessLineWriter(captured("info").logger)).toBe("function");
});

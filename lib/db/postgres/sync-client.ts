import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { SqlDatabase, SqlParams, SqlStatement } from "../sql.ts";
import type { BridgeCall, BridgeReply, BridgeSetup } from "./bridge-protocol.ts";
import { PostgresError } from "./errors.ts";

export { PostgresError };

// Longest wait for one answer: past it the server or the network is taken for gone.
const ANSWER_TIMEOUT_MS = 60_000;

/**
 * A statement's text with `$name` and `?` parameters numbered as PostgreSQL
 * reads them, and the names in the order they are bound.
 */
function numbered(sql: string): { text: string; names: (string | number)[] } {
	const names: (string | number)[] = [];
	let positional = 0;
	const text = sql.replace(/\$([A-Za-z_][A-Za-z0-9_]*)|\?/g, (_match, name: string | undefined) => {
		const key = name ?? positional++;
		const index = names.indexOf(key);
		if (index >= 0) return `$${index + 1}`;
		names.push(key);
		return `$${names.length}`;
	});
	return { text, names };
}

function bound(names: (string | number)[], params: SqlParams): unknown[] {
	const first = params[0];
	const byName = typeof first === "object" && first !== null && !(first instanceof Uint8Array);
	return names.map((name) =>
		typeof name === "string" ? (byName ? (first as Record<string, unknown>)[name] : undefined) : params[name],
	);
}

/**
 * PostgreSQL behind the same synchronous calls as bun:sqlite: a worker holds
 * the connection (Bun.SQL) and this thread waits for each answer
 * (Atomics.wait), so the store's code and its callers stay as they are. A
 * statement's round trip on loopback is about 0.15 ms; the API asks the
 * database little, as it answers from memory (lib/recent).
 */
export class PostgresDatabase implements SqlDatabase {
	readonly engine = "postgres";
	readonly #worker: Worker;
	readonly #port: MessagePort;
	readonly #flag = new Int32Array(new SharedArrayBuffer(4));
	#closed = false;
	#requests = 0;
	readonly #answerTimeoutMs: number;

	/** `answerTimeoutMs`: the longest wait for one answer (tests shorten it). */
	constructor(url: string, options: { answerTimeoutMs?: number } = {}) {
		this.#answerTimeoutMs = options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
		const { port1, port2 } = new MessageChannel();
		const setup: BridgeSetup = { url, flag: this.#flag, port: port2 };
		this.#worker = new Worker(new URL("./bridge-worker.ts", import.meta.url), {
			workerData: setup,
			transferList: [port2],
		});
		this.#worker.unref();
		this.#port = port1 as unknown as MessagePort;
	}

	#call(request: BridgeCall): BridgeReply {
		if (this.#closed) throw new PostgresError("the database connection is closed", "08003");
		const id = ++this.#requests;
		Atomics.store(this.#flag, 0, 0);
		this.#port.postMessage({ ...request, id });
		const deadline = performance.now() + this.#answerTimeoutMs;
		for (;;) {
			const waited = Atomics.wait(this.#flag, 0, 0, Math.max(0, deadline - performance.now()));
			Atomics.store(this.#flag, 0, 0);
			// Answers to requests given up on are dropped.
			for (let message = this.#receive(); message !== undefined; message = this.#receive()) {
				if (message.id === id) return message;
			}
			if (waited === "timed-out" || performance.now() >= deadline) {
				throw new PostgresError(`PostgreSQL did not answer in ${this.#answerTimeoutMs / 1000} s`, "08006");
			}
		}
	}

	#receive(): BridgeReply | undefined {
		return receiveMessageOnPort(this.#port as never)?.message as BridgeReply | undefined;
	}

	/**
	 * Runs one statement's text with positional parameters ($1, $2...).
	 * `cancelAfterMs`: PostgreSQL is asked to cancel it past that time, and
	 * `cancelled` says so (a statement that ended first still answers).
	 */
	run(
		text: string,
		params: unknown[] = [],
		options: { cancelAfterMs?: number } = {},
	): { rows: Record<string, unknown>[]; changes: number; cancelled: boolean } {
		const reply = this.#call({ text, params, cancelAfterMs: options.cancelAfterMs });
		if (reply.error) throw new PostgresError(reply.error.message, reply.error.code);
		return { rows: reply.rows, changes: reply.changes, cancelled: reply.cancelled === true };
	}

	/** Runs statements without parameters (several may be separated by semicolons). */
	exec(text: string): void {
		this.run(text);
	}

	prepare<Row = unknown>(sql: string): SqlStatement<Row> {
		const { text, names } = numbered(sql);
		const run = (params: SqlParams) => this.run(text, bound(names, params));
		return {
			all: (...params) => run(params).rows as Row[],
			get: (...params) => (run(params).rows[0] as Row | undefined) ?? null,
			run: (...params) => ({ changes: run(params).changes }),
		};
	}

	close(): void {
		if (this.#closed) return;
		this.#call({ close: true });
		this.#closed = true;
		this.#port.close();
		this.#worker.terminate();
	}
}

import { workerData } from "node:worker_threads";
import { SQL } from "bun";
import type { BridgeReply, BridgeRequest, BridgeSetup } from "./bridge-protocol.ts";
import { asPostgresError, CONNECT_TIMEOUT_SECONDS } from "./errors.ts";

// PostgreSQL's type oid of int8: Bun.SQL gives it as a string, the store's
// numbers (ids, Unix seconds, counts) are well inside 2^53.
const INT8 = 20;

const { url, flag, port } = workerData as BridgeSetup;
// One connection: the calling thread waits for each answer, so statements run
// one at a time in its order, and BEGIN ... COMMIT span the calls between.
const sql = new SQL(url, { max: 1, idleTimeout: 0, connectionTimeout: CONNECT_TIMEOUT_SECONDS });

type Result = Record<string, unknown>[] & {
	count: number | null;
	columns?: { name: string; type: number }[];
};

function numbersOf(rows: Result): Record<string, unknown>[] {
	const int8 = (rows.columns ?? []).filter((column) => column.type === INT8).map((column) => column.name);
	if (int8.length === 0) return [...rows];
	return rows.map((row) => {
		for (const name of int8) if (row[name] !== null) row[name] = Number(row[name]);
		return row;
	});
}

async function answer(request: BridgeRequest): Promise<BridgeReply> {
	const { id } = request;
	if (request.close) {
		await sql.close();
		return { id, rows: [], changes: 0 };
	}
	const query = sql.unsafe(request.text, request.params);
	let cancelled = false;
	const timer =
		request.cancelAfterMs === undefined
			? undefined
			: setTimeout(() => {
					cancelled = true;
					query.cancel();
				}, request.cancelAfterMs);
	try {
		const rows = (await query) as unknown as Result;
		return { id, rows: numbersOf(rows), changes: rows.count ?? 0, cancelled };
	} catch (error) {
		const { message, code } = asPostgresError(error);
		return { id, error: { message, code }, cancelled };
	} finally {
		clearTimeout(timer);
	}
}

port.on("message", async (request: BridgeRequest) => {
	port.postMessage(await answer(request));
	Atomics.store(flag, 0, 1);
	Atomics.notify(flag, 0);
});

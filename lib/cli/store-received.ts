import type { Config } from "../config.ts";
import { DatabaseBusyError, DatabaseOpenError, UnconfirmedCommitError } from "../db/index.ts";
import { PipelineUnavailableError } from "../document/index.ts";
import { type Received, type ReceivedFile, receiveFax } from "../ingest/index.ts";
import { withStore } from "./open-store.ts";

/**
 * A full, read-only or locked disk, a database another writer held for too
 * long, a commit no standby confirmed, or a document pipeline that does not load is the operator's to fix,
 * and is told as such; any other failure reaches the command runner's own
 * one-line report.
 */
function isHostFailure(error: unknown): error is Error {
	if (error instanceof DatabaseBusyError || error instanceof DatabaseOpenError) return true;
	if (error instanceof UnconfirmedCommitError) return true;
	if (error instanceof PipelineUnavailableError) return true;
	if (!(error instanceof Error)) return false;
	const code = (error as { code?: unknown }).code;
	return error.name === "SQLiteError" || (typeof code === "string" && /^E[A-Z]+$/.test(code));
}

/** Lists a received file in the configured store; a failure of the host is returned, not thrown. */
export async function storeReceived(
	config: Config,
	file: ReceivedFile,
	nowMs: number,
): Promise<Received | Error> {
	try {
		return await withStore(config, (store, storageDir) =>
			receiveFax(file, store, storageDir, Math.floor(nowMs / 1000)),
		);
	} catch (error) {
		if (isHostFailure(error)) return error;
		throw error;
	}
}

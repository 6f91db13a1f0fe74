import type { MessagePort } from "node:worker_threads";

/** What the bridge worker is started with. */
export interface BridgeSetup {
	url: string;
	/** Set to 1 by the worker once its answer is posted. */
	flag: Int32Array;
	port: MessagePort;
}

/** `id` numbers the requests: an answer that came after its caller gave up is told from the next one's. */
/** `cancelAfterMs`: PostgreSQL is asked to cancel the statement if it has not ended by then. */
export type BridgeCall =
	| { text: string; params: unknown[]; cancelAfterMs?: number; close?: false }
	| { close: true };
export type BridgeRequest = { id: number } & BridgeCall;

export type BridgeReply = { id: number } & (
	| { rows: Record<string, unknown>[]; changes: number; error?: undefined }
	| { error: { message: string; code: string } }
) & {
		/** The statement ran past its cancelAfterMs and was asked to stop (it may have ended first). */
		cancelled?: boolean;
	};

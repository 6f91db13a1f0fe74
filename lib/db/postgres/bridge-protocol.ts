import type { MessagePort } from "node:worker_threads";

/** What the bridge worker is started with. */
export interface BridgeSetup {
	url: string;
	/** Set to 1 by the worker once its answer is posted. */
	flag: Int32Array;
	port: MessagePort;
}

export type BridgeRequest = { text: string; params: unknown[]; close?: false } | { close: true };

export type BridgeReply =
	| { rows: Record<string, unknown>[]; changes: number; error?: undefined }
	| { error: { message: string; code: string } };

// A message to a test address that our Postfix did not take whole (its log,
// postfix-log.ts) listed as a failed call is: "Available, not processable",
// its sender masked, its page saying how it ended. One client cannot flood
// the public list with them: each client address lists at most
// REFUSALS_PER_CLIENT in REFUSAL_WINDOW_MS; the rest are only logged.
import { MAX_EMAIL_BYTES } from "../document/index.ts";
import type { MailRefusal } from "./postfix-log.ts";
import type { ReceivedFile } from "./receive-fax.ts";

export const REFUSALS_PER_CLIENT = 5;
export const REFUSAL_WINDOW_MS = 3600_000;

/** The entry a refusal is listed as: nothing of the message, its sender, its time, named by its queue id. */
export function refusalFile(refusal: MailRefusal, nowSeconds: number): ReceivedFile {
	return {
		bytes: new Uint8Array(0),
		filename: null,
		source: "email",
		sender: refusal.sender,
		receivedAt: nowSeconds,
		receiptKey: `postfix-refused:${refusal.queueId}`,
		// Postfix's message_size_limit is set to the size the service reads (install-lib.sh).
		refused: { kind: refusal.kind, bytes: refusal.bytes, limitBytes: MAX_EMAIL_BYTES },
	};
}

/** The refusals each client address listed in the last window. */
export class RefusalBound {
	readonly #listed = new Map<string, number[]>();

	/** True, and counted, when `client` may list one more at `nowMs`. */
	take(client: string, nowMs: number): boolean {
		if (this.#listed.size > 10_000) this.#forget(nowMs);
		const recent = (this.#listed.get(client) ?? []).filter((at) => at > nowMs - REFUSAL_WINDOW_MS);
		if (recent.length >= REFUSALS_PER_CLIENT) {
			this.#listed.set(client, recent);
			return false;
		}
		this.#listed.set(client, [...recent, nowMs]);
		return true;
	}

	/** Drops the clients with none in the window: many clients once each must not grow the map for good. */
	#forget(nowMs: number): void {
		for (const [client, times] of this.#listed)
			if (!times.some((at) => at > nowMs - REFUSAL_WINDOW_MS)) this.#listed.delete(client);
	}
}

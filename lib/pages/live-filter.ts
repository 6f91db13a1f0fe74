import type { SenderFilter } from "../db/index.ts";
import { isUnknownSenderQuery, MAX_SENDER_LENGTH, senderMatchKey } from "../fax/index.ts";
import type { LiveFilter } from "./live-page.ts";

/** The `from` of /faxtest and its stream: what the page says of it, and the sender it selects. */
export function liveFilterOf(from: string | null): { filter: LiveFilter; sender: SenderFilter } {
	if (from === null || from.trim() === "") return { filter: { kind: "all" }, sender: { kind: "any" } };
	if ([...from].length > MAX_SENDER_LENGTH) {
		return {
			filter: {
				kind: "invalid",
				message: `A sender has at most ${MAX_SENDER_LENGTH} characters: showing all tests.`,
			},
			sender: { kind: "any" },
		};
	}
	if (isUnknownSenderQuery(from)) return { filter: { kind: "sender" }, sender: { kind: "unknown" } };
	return { filter: { kind: "sender" }, sender: { kind: "key", key: senderMatchKey(from) } };
}

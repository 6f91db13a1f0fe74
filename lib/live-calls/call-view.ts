import type { LiveProgress } from "../report/index.ts";

/** What the pages show of one call in progress: written by its feed, read by every instance. */
export type CallView = LiveProgress & {
	/** Milliseconds since the epoch: the last line that came from the sender's side; null before the answer. */
	heardAt: number | null;
};

/** A call in progress as the pages show it. */
export type ShownCall = {
	key: string;
	/** Masked, as every sender is; null before its TSI came or when it sent none. */
	from: string | null;
	/** Milliseconds since the epoch. */
	startedAt: number;
	view: CallView;
};

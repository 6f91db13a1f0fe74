// The types of the one model of a call (call-model.ts builds it).
import type { AdviceKey, EndedBy } from "./hylafax-reasons.ts";
import type { CallStep } from "./t30-session.ts";

export type PageState = "whole" | "partial" | "absent";

/** One page of the call: whole (confirmed, MCF), partial (some of it came), or absent (none of it came). */
export type PageModel = {
	page: number;
	at: string;
	/** How long it took, from HylaFAX's own page line; null when it never completed. */
	time: string | null;
	state: PageState;
	/** The lines of it that came: in the received file, else as HylaFAX counted them; null when not known. */
	lines: number | null;
	/** What a whole page would have held, to measure a partial one: a whole page of this call, else an A4 page. */
	of: { lines: number; basis: "this call's pages" | "an A4 page" } | null;
	badLines: number;
	consecutiveBad: number;
	frames: number;
	pprs: number;
	postPage: string | null;
	answer: string | null;
};

/** T.30's phases: A call set-up, B the handshake, C the page data, D after each page, E the release. */
export type Phase = "A" | "B" | "C" | "D" | "E";

/** Who ended the call: a side of the reason table, a normal end, or not known. */
export type EndedByModel = EndedBy | "normal" | "unknown";

export type EndingModel = {
	by: EndedByModel;
	/** How it ended, in a tester's words: one or more sentences, each ending with one period. */
	words: string;
	/** HylaFAX's own line for it, shown beside the words; null when it wrote none. */
	raw: string | null;
	at: string | null;
	/** The advice the reason table gives for HylaFAX's reason. */
	advice: AdviceKey[];
};

/** What kind of failure the fax was, for the list row and the verdict. */
export type FailureKind =
	| "none"
	| "no-fax-machine"
	| "handshake"
	| "before-first-page"
	| "during-page"
	| "after-page"
	| "after-last-page"
	| "document"
	| "unknown";

/** One training: its rate, how its check signal (TCF) came, and whether it succeeded. */
export type Training = {
	at: string;
	bitsPerSecond: number | null;
	modulation: string | null;
	check: string | null;
	ok: boolean | null;
};

export type CallModel = {
	/** A session log came with the fax; without one, how the call went is not known. */
	logged: boolean;
	phases: Phase[];
	/** A fax machine answered ours: a frame, a carrier or a training came from the caller. */
	faxMachine: boolean | null;
	pages: PageModel[];
	wholePages: number;
	/** Pages in the received file; null when there is none or it could not be read. */
	filePages: number | null;
	/** The speed the pages came at (the training that succeeded, else the file's); null when no training succeeded. */
	speed: { bitsPerSecond: number; modulation: string | null } | null;
	/** Whether the pages came with error correction; null when not known. */
	ecm: boolean | null;
	trainings: Training[];
	line: {
		disSent: number;
		dcsReceived: number;
		damagedFrames: number;
		crpsSent: number;
		crpsReceived: number;
		pprs: number;
		badLines: number;
	};
	ending: EndingModel;
	/** Complete only when the call ended EOP → MCF → the sender's DCN, with no reason from HylaFAX. */
	complete: "yes" | "no" | "unknown";
	failure: FailureKind;
	/** The page the call failed on (during or after it); null when none. */
	failedPage: number | null;
	steps: CallStep[];
	/** What the sender asked for in its last DCS, in HylaFAX's words. */
	requested: string[];
};

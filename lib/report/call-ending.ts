// How a call ended, and who ended it: from HylaFAX's reason through its
// table (hylafax-reasons.ts), else from what the session log shows of the end.
import type { EndingModel, PageModel } from "./call-types.ts";
import { reasonOf } from "./hylafax-reasons.ts";
import type { CallReport } from "./report.ts";

/** The last page came whole, and the sender said it was the last (EOP). */
export function lastPageConfirmed(pages: PageModel[]): boolean {
	const last = pages.at(-1);
	return last !== undefined && last.state === "whole" && /EOP$/.test(last.postPage ?? "");
}

function reasonEnding(call: CallReport, reason: string): EndingModel {
	const entry = reasonOf(reason);
	return {
		by: entry?.endedBy ?? "unknown",
		words: entry?.words ?? "HylaFAX ended the call with an error of its own, shown beside this line.",
		raw: reason,
		at: call.ending.at,
		advice: entry?.advice ?? [],
	};
}

/** The call ended with the sender's DCN, which HylaFAX read. */
function dcnEnding(call: CallReport, pages: PageModel[]): EndingModel {
	const at = call.ending.at;
	if (lastPageConfirmed(pages))
		return {
			by: "normal",
			words: "Your machine hung up normally after the last page.",
			raw: null,
			at,
			advice: [],
		};
	return {
		by: "sender",
		words: "Your machine hung up before it said the last page was sent.",
		raw: null,
		at,
		advice: ["sender-report"],
	};
}

/** The call ended with no reason from HylaFAX and no DCN read: what the log's last steps show. */
function silentEnding(call: CallReport, pages: PageModel[]): EndingModel {
	const steps = call.steps ?? [];
	const modemError = steps.findLast((step) => step.kind === "modem-error");
	if (modemError !== undefined)
		return {
			by: "line",
			words: "The connection broke: our modem lost the call in the middle, and HylaFAX logged no end to it.",
			raw: modemError.line,
			at: modemError.at,
			advice: ["line"],
		};
	const last = steps.at(-1);
	if (lastPageConfirmed(pages) && call.sessionEnded === true && last?.kind === "frame-damaged")
		return {
			by: "normal",
			words:
				"Your machine hung up after the last page; its hang-up signal arrived damaged, which did no harm.",
			raw: last.line,
			at: last.at,
			advice: [],
		};
	const words =
		call.sessionEnded === false
			? "The session log stops without an end, so how the call ended is not known."
			: "HylaFAX logged no reason for the end of the call, so how it ended is not known.";
	return { by: "unknown", words, raw: null, at: call.ending.at, advice: [] };
}

/**
 * A page of which nothing came, after our wait for its data ran out: the
 * sender went silent. HylaFAX then reports the empty page as its own write
 * error (`RECV: 0 bytes of data`, `Write error to file …`), which is not the
 * cause; its line stays beside the words.
 */
function silentSender(call: CallReport, pages: PageModel[], reason: string | null): EndingModel | null {
	const last = pages.at(-1);
	const timeout = (call.steps ?? []).findLast((step) => step.kind === "timeout");
	if (last?.state !== "absent" || timeout === undefined) return null;
	return {
		by: "receiver-timeout",
		words: `Your machine went silent during page ${last.page}: our receiver waited for its data, then gave up.`,
		raw: reason ?? timeout.line,
		at: call.ending.at ?? timeout.at,
		advice: ["sender-report", "line"],
	};
}

/** How the call ended: a silent sender, else HylaFAX's reason when it gave one, else the sender's DCN, else what the log shows. */
export function endingOf(call: CallReport, pages: PageModel[]): EndingModel {
	const reason = call.ending.clean ? null : call.ending.reason;
	const silent = silentSender(call, pages, reason === "" ? null : reason);
	if (silent !== null) return silent;
	if (reason !== null && reason !== "") return reasonEnding(call, reason);
	return call.ending.clean ? dcnEnding(call, pages) : silentEnding(call, pages);
}

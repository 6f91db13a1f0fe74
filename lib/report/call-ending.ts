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
	// HylaFAX ends a session after EOP and our MCF as a clean one, whether or
	// not the sender's DCN came whole (an FCS error, or no frame at all).
	if (lastPageConfirmed(pages) && call.sessionEnded === true) {
		const damaged = steps.at(-1)?.kind === "frame-damaged" ? steps.at(-1) : undefined;
		return {
			by: "normal",
			words:
				"Your machine hung up after the last page; its hang-up signal did not come through clean, which did no harm.",
			raw: damaged?.line ?? null,
			at: damaged?.at ?? call.ending.at,
			advice: [],
		};
	}
	const words =
		call.sessionEnded === false
			? "The session log stops without an end, so how the call ended is not known."
			: "HylaFAX logged no reason for the end of the call, so how it ended is not known.";
	return { by: "unknown", words, raw: null, at: call.ending.at, advice: [] };
}

/**
 * A page that stopped coming, after which our wait for its data ran out:
 * the sender went silent. HylaFAX then gives a reason of its own (the empty
 * page as a write error, `RECV: 0 bytes of data`, `Write error to file …`;
 * or the carrier it still hears, `Timeout waiting for Phase C carrier
 * drop`), which is not the cause; its line stays beside the words. A sender
 * that then says goodbye (DCN, `COMREC received DCN`) ended the call itself.
 */
function silentSender(call: CallReport, pages: PageModel[], reason: string | null): EndingModel | null {
	const last = pages.at(-1);
	const steps = call.steps ?? [];
	const timeout = steps.findLast((step) => step.kind === "timeout");
	if (last === undefined || last.state === "whole" || timeout === undefined || timeout.at < last.at)
		return null;
	const byReason = reason === null ? null : reasonOf(reason);
	if (byReason?.endedBy === "sender" || steps.some((step) => step.kind === "dcn-received")) return null;
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

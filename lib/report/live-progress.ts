// How far a call being received has come, in a tester's words: read from the
// one model of the call (call-model.ts), built from the session log as far as
// HylaFAX has written it. The live entry of /faxtest shows it; when the call
// ends, the fax's own page reads the same model built from the same lines.
import { type CallModel, callModel, type PageModel } from "./call-model.ts";
import type { CallReport } from "./report.ts";
import type { T30Session } from "./t30-session.ts";

const numbers = new Intl.NumberFormat("en");

/** What the pages show of a call in progress. */
export type LiveProgress = {
	/** Where the call is now: one sentence. */
	now: string;
	/** What it has done so far, oldest first: the log's time (HH:MM:SS) and the words. */
	done: { at: string; text: string }[];
	/**
	 * Whether a silence of the sender can be told now: not while a page comes
	 * without error correction (HylaFAX logs nothing of it before its end),
	 * nor before the answer or after the end.
	 */
	silenceTold: boolean;
	ended: boolean;
};

/** The sender's silence is told after this many seconds without a sign of it. */
export const SILENT_AFTER_SECONDS = 10;

/** The call so far as a fax's report keeps it: the session without what is private or kept elsewhere. */
export function callReportOf(session: T30Session, noPage: boolean): CallReport {
	const { tsi: _tsi, startedAt: _start, ...call } = session;
	return { ...call, noPage };
}

function rateText(training: CallModel["trainings"][number]): string {
	if (training.bitsPerSecond === null) return "an unknown speed";
	return `${training.modulation ?? ""} ${numbers.format(training.bitsPerSecond)} bit/s`.trim();
}

const MESSAGES: Record<string, string> = {
	MPS: "more pages follow",
	EOP: "this was the last page",
	EOM: "another document follows",
};

function pageNow(page: PageModel, ecm: boolean | null): string {
	if (page.answer === null || page.answer === "PPR") {
		if (page.postPage !== null && page.answer === null)
			return `Page ${page.page} is in: your machine said ${MESSAGES[page.postPage] ?? page.postPage}, and our answer is on its way.`;
		const frames =
			page.frames > 0
				? `: ${numbers.format(page.frames)} ECM frame${page.frames === 1 ? "" : "s"} so far`
				: "";
		const pprs =
			page.pprs > 0
				? `, ${page.pprs} partial page request${page.pprs === 1 ? "" : "s"} (PPR) sent for the damaged ones`
				: "";
		const plain = ecm === false ? " (without error correction, its lines are counted at its end)" : "";
		return `Page ${page.page} arriving${frames}${pprs}${plain}.`;
	}
	if (page.answer === "MCF")
		return page.postPage === "EOP"
			? `Page ${page.page} came whole, the last one: the call is ending.`
			: `Page ${page.page} came whole: page ${page.page + 1} is next.`;
	return `Page ${page.page} came damaged: we asked your machine to send it again after training again (${page.answer}).`;
}

function trainingNow(model: CallModel): string {
	const last = model.trainings.at(-1);
	if (last === undefined) return "";
	const earlier = model.trainings.length - 1;
	const fallback = earlier > 0 ? `, after ${earlier} earlier tr${earlier === 1 ? "y" : "ies"}` : "";
	if (last.ok === null) return `Training at ${rateText(last)}${fallback}: checking the line at that speed.`;
	if (last.ok) return `Trained at ${rateText(last)}: page 1 is next.`;
	return `Training at ${rateText(last)} failed: your machine should try again, usually slower.`;
}

function handshakeNow(model: CallModel, call: CallReport): string {
	if (model.line.dcsReceived > 0)
		return `Your machine chose how to send: ${model.requested.join(", ") || "its settings came"}.`;
	if (model.line.disSent > 0)
		return "We told your machine what ours can receive (DIS): waiting for its answer.";
	return call.answered === true ? "Answered: waiting for your fax machine's signal." : "A call is coming in.";
}

function nowOf(model: CallModel, call: CallReport, ended: boolean): string {
	if (ended)
		return call.faxMachine === false
			? "The call has ended: no fax machine answered ours, so it is not listed."
			: "The call has ended: its fax is being listed.";
	const page = model.pages.at(-1);
	if (page !== undefined) return pageNow(page, model.ecm);
	return trainingNow(model) || handshakeNow(model, call);
}

function doneOf(model: CallModel, call: CallReport): LiveProgress["done"] {
	const done: LiveProgress["done"] = [];
	const answer = call.lines.find((line) => / ANSWER: FAX CONNECTION/.test(line));
	if (answer !== undefined) done.push({ at: answer.slice(0, 8), text: "Answered as a fax call" });
	const dcs = model.steps.findLast((step) => step.kind === "dcs-received");
	if (dcs !== undefined) done.push({ at: dcs.at, text: `Your machine chose: ${model.requested.join(", ")}` });
	for (const training of model.trainings) {
		const result = training.ok === null ? "" : training.ok ? ": succeeded" : ": failed";
		done.push({ at: training.at, text: `Training at ${rateText(training)}${result}` });
	}
	for (const page of model.pages) {
		if (page.answer !== "MCF") continue;
		done.push({
			at: page.at,
			text: `Page ${page.page} came whole${page.time === null ? "" : ` in ${page.time}`}`,
		});
	}
	return done;
}

/** How far the call has come: `call` is its model so far, `ended` whether the session log says it is over. */
export function liveProgress(call: CallReport, ended: boolean): LiveProgress {
	const model = callModel({ document: null, session: null, email: null, call }) as CallModel;
	const page = model.pages.at(-1);
	const plainPage =
		page !== undefined && page.answer === null && page.postPage === null && model.ecm === false;
	return {
		now: nowOf(model, call, ended),
		done: doneOf(model, call),
		silenceTold: !ended && call.answered === true && !plainPage,
		ended,
	};
}

// The one model of a fax call: what happened, built once from the report that
// ingest kept (the session log as read, the received file's facts, HylaFAX's
// reason). The verdict, its advice, the timeline, the facts rows and the list
// row all read this model, so they cannot disagree. Where the evidence is
// missing (a file listed without its session log, a report made before a
// field was kept) the model says unknown, and unknown is never shown as good.
import { endingOf, lastPageConfirmed } from "./call-ending.ts";
import type { CallModel, EndingModel, FailureKind, PageModel, Phase, Training } from "./call-types.ts";
import type { CallReport, FaxReport } from "./report.ts";
import type { CallStep, PageSession } from "./t30-session.ts";

export type { CallModel, EndingModel, FailureKind, PageModel, PageState, Phase } from "./call-types.ts";

const A4_MM = 297;
const MM_PER_INCH = 25.4;

const count = (steps: CallStep[], kind: CallStep["kind"]) =>
	steps.filter((step) => step.kind === kind).length;

/** "v.17 14400 bit/s" as HylaFAX writes a training's rate. */
function rateOf(text: string): { bitsPerSecond: number | null; modulation: string | null } {
	const match = /^(v\.\d+(?:ter)?)\s+(\d+)\s*bit\/s/i.exec(text.trim());
	if (match === null) return { bitsPerSecond: null, modulation: null };
	return {
		bitsPerSecond: Number(match[2]),
		modulation: (match[1] ?? "").toUpperCase().replace("TER", "ter"),
	};
}

function speedOf(trainings: Training[], report: FaxReport): CallModel["speed"] {
	const trained = trainings.filter((training) => training.ok === true).at(-1);
	if (trained?.bitsPerSecond != null)
		return { bitsPerSecond: trained.bitsPerSecond, modulation: trained.modulation };
	const session = report.session;
	if (session === null || (report.call !== undefined && trained === undefined)) return null;
	return { bitsPerSecond: session.bitsPerSecond, modulation: session.modulation };
}

function ecmOf(call: CallReport | undefined, report: FaxReport): boolean | null {
	if (call !== undefined && call.requested.length > 0)
		return call.requested.some((want) => /\bECM\b/.test(want));
	return report.session?.ecm ?? null;
}

function fileLengths(report: FaxReport): number[] | null {
	const document = report.document;
	if (document === null || document.format !== "TIFF") return null;
	return document.pageLengths ?? null;
}

/** A whole page's length: the longest whole page of the call, else an A4 page at the file's resolution. */
function wholeLength(pages: PageSession[], lengths: number[] | null, report: FaxReport): PageModel["of"] {
	const whole = pages
		.map((page, index) => (page.answer === "MCF" ? (lengths?.[index] ?? page.lines?.total ?? 0) : 0))
		.reduce((a, b) => Math.max(a, b), 0);
	if (whole > 0) return { lines: whole, basis: "this call's pages" };
	const document = report.document;
	const yDpi = document?.format === "TIFF" ? document.firstPage?.yDpi : null;
	if (yDpi == null) return null;
	return { lines: Math.round((A4_MM / MM_PER_INCH) * yDpi), basis: "an A4 page" };
}

function pageModels(call: CallReport, report: FaxReport): PageModel[] {
	const lengths = fileLengths(report);
	const of = wholeLength(call.pages, lengths, report);
	return call.pages.map((page, index) => {
		const lines =
			lengths?.[index] ?? (page.lines === null || page.lines.total === 0 ? null : page.lines.total);
		const whole = page.answer === "MCF";
		const came = lines !== null || page.frames > 0;
		return {
			page: page.page,
			at: page.at,
			time: page.time,
			state: whole ? "whole" : came ? "partial" : "absent",
			lines,
			of: whole ? null : of,
			badLines: page.lines?.bad ?? 0,
			consecutiveBad: page.lines?.consecutiveBad ?? 0,
			frames: page.frames,
			pprs: page.pprs,
			postPage: page.postPage,
			answer: page.answer,
		};
	});
}

function failureOf(
	call: CallReport,
	pages: PageModel[],
	ending: EndingModel,
	trainings: Training[],
): FailureKind {
	const last = pages.at(-1);
	if (call.noPage || last === undefined) {
		if (call.faxMachine === false) return "no-fax-machine";
		return trainings.some((training) => training.ok === true) ? "before-first-page" : "handshake";
	}
	if (last.state !== "whole") return "during-page";
	if (!lastPageConfirmed(pages)) return "after-page";
	// Every page the sender announced came whole; the call still ended with an error.
	return ending.by === "normal" ? "none" : "after-last-page";
}

function phasesOf(call: CallReport, pages: PageModel[], ending: EndingModel): Phase[] {
	const phases: Phase[] = [];
	if (call.answered !== false) phases.push("A");
	if (call.faxMachine !== false) phases.push("B");
	if (pages.length > 0) phases.push("C");
	if (pages.some((page) => page.postPage !== null)) phases.push("D");
	if (ending.by === "normal" || (call.steps ?? []).some((step) => step.kind === "dcn-received"))
		phases.push("E");
	return phases;
}

/** The model of a call whose session log came with the fax. */
function loggedModel(call: CallReport, report: FaxReport): CallModel {
	const steps = call.steps ?? [];
	const trainings = call.trainings.map((training) => ({
		at: training.at,
		ok: training.ok,
		check: training.tcf,
		...rateOf(training.rate),
	}));
	const pages = pageModels(call, report);
	const ending = endingOf(call, pages);
	const called = failureOf(call, pages, ending, trainings);
	// A call that went well and left a file that cannot be read: the document is at fault.
	const failure = called === "none" && report.problem !== undefined ? "document" : called;
	return {
		logged: true,
		phases: phasesOf(call, pages, ending),
		faxMachine: call.faxMachine ?? (call.noPage ? null : true),
		pages,
		wholePages: pages.filter((page) => page.state === "whole").length,
		filePages: report.document?.format === "TIFF" ? report.document.pages : null,
		speed: speedOf(trainings, report),
		ecm: ecmOf(call, report),
		trainings,
		line: {
			disSent: count(steps, "dis-sent"),
			dcsReceived: count(steps, "dcs-received"),
			damagedFrames: count(steps, "frame-damaged"),
			crpsSent: count(steps, "crp-sent"),
			crpsReceived: count(steps, "crp-received"),
			pprs: pages.reduce((sum, page) => sum + page.pprs, 0),
			badLines: pages.reduce((sum, page) => sum + page.badLines, 0),
		},
		ending,
		complete: called === "none" ? "yes" : "no",
		failure,
		failedPage: failure === "during-page" || failure === "after-page" ? (pages.at(-1)?.page ?? null) : null,
		steps,
		requested: call.requested,
	};
}

/** The model of a fax by phone that came without its session log: its file is all that is known. */
function unloggedModel(report: FaxReport): CallModel {
	const filePages = report.document?.format === "TIFF" ? report.document.pages : null;
	return {
		logged: false,
		phases: [],
		faxMachine: null,
		pages: [],
		wholePages: 0,
		filePages,
		speed: speedOf([], report),
		ecm: ecmOf(undefined, report),
		trainings: [],
		line: {
			disSent: 0,
			dcsReceived: 0,
			damagedFrames: 0,
			crpsSent: 0,
			crpsReceived: 0,
			pprs: 0,
			badLines: 0,
		},
		ending: {
			by: "unknown",
			words: "No session log came with this fax, so how the call ended is not known.",
			raw: null,
			at: null,
			advice: [],
		},
		complete: "unknown",
		failure: report.problem !== undefined ? "document" : "unknown",
		failedPage: null,
		steps: [],
		requested: [],
	};
}

/** The model of a fax's call; null for a test that came by email. */
export function callModel(report: FaxReport): CallModel | null {
	if (report.email !== null) return null;
	return report.call === undefined ? unloggedModel(report) : loggedModel(report.call, report);
}

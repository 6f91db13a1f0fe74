// The T.30 session of one received call, read from HylaFAX 6.0.7's session
// log (log/cNNNNNNNNN, written by faxgetty: faxd/Class1Recv.c++,
// faxd/FaxRecv.c++, faxd/Class1.c++ write the lines matched here). Real logs
// of calls between two iaxmodems are kept in fixtures/hylafax/ and parsed by
// test/report/t30-session.test.ts.
import { maskSender } from "../fax/index.ts";

/** One training: the rate the sender asked for and how the check (TCF) went. */
export type Training = { at: string; rate: string; tcf: string | null; ok: boolean | null };

/** What one line of the handshake or the ending showed (see STEPS). */
export type StepKind =
	| "dis-sent"
	| "dcs-received"
	| "frame-damaged"
	| "crp-sent"
	| "crp-received"
	| "dcn-received"
	| "modem-error"
	| "timeout";

/** One step of the call's evidence: its kind, when, and HylaFAX's line as written (the sender's ID masked). */
export type CallStep = { at: string; kind: StepKind; line: string };

/** One page as the receiver saw it. */
export type PageSession = {
	page: number;
	/** When the page's data began (the log's clock, HH:MM:SS). */
	at: string;
	/** `0:00:11`, from HylaFAX's own page line; null when the page never completed. */
	time: string | null;
	/** ECM: frames received in each block, and the partial page requests (PPR) sent. */
	frames: number;
	pprs: number;
	/** Without ECM: the lines of the page and the damaged ones. */
	lines: { total: number; bad: number; consecutiveBad: number } | null;
	/** The sender's post-page message (MPS, EOP, EOM, PPS…) and our answer (MCF, RTN, RTP, PPR). */
	postPage: string | null;
	answer: string | null;
};

export type T30Session = {
	/** Whether a fax machine answered the handshake: any T.30 frame, V.21 frame carrier or training came from the caller. */
	faxMachine: boolean;
	/** The first line's time as written (`Nov 26 10:28:30.93`): with the commid, it names the call. */
	startedAt: string | null;
	/** The TSI as received: private, never kept (see `lines`, where it is masked). */
	tsi: string | null;
	/** What the last DCS asked for, in HylaFAX's words (`14400 bit/s`, `2-D MMR`, `T.30 Annex A, 256-byte ECM`). */
	requested: string[];
	trainings: Training[];
	pages: PageSession[];
	/** How the call ended: `disconnect` after the sender's DCN, else the error HylaFAX gave. */
	ending: { clean: boolean; reason: string | null; at: string | null };
	/** Our modem answered the call as a fax (`ANSWER: FAX CONNECTION`). */
	answered: boolean;
	/** HylaFAX closed the session itself (`SESSION END`): without it the call was cut off under it. */
	sessionEnded: boolean;
	/** The handshake's evidence, in order: our DIS, the sender's DCS, damaged frames, command repeats, the modem's errors. */
	steps: CallStep[];
	/** The log's lines that say what happened (modem chatter left out), the TSI and caller ID masked. */
	lines: string[];
};

const LINE = /^(\w{3} +\d+ (\d\d:\d\d:\d\d)\.\d\d): \[ *\d+\]: (.*)$/;
// Lines that say something of the session; the rest is the modem's AT chatter and data counts.
const KEPT =
	/^(SESSION|ANSWER|RECV|REMOTE|TRAINING|<-- HDLC|--> HDLC|RSPREC|COMREC|No sender|Failed|Failure|Timeout|MODEM Command|MODEM (?:READ|WRITE) ERROR|CLOSE |.*[Ee]rror)/;
// Private or not the tester's business: the caller ID and the command faxgetty ran.
const DROPPED = /^(CallID:|RECV FAX: \/)/;
// An HDLC frame from the caller whose content names it: TSI (x1000010) and NSS (x0100010).
const NAMING_FRAME = /^(\d\d:\d\d:\d\d --> HDLC<\d+:FF C[08] )(?:C2|42|22|A2)((?: [0-9A-F]{2})*)>/;

/** A frame that names the caller keeps its length and control field, not its content. */
function maskFrame(text: string): string {
	const match = NAMING_FRAME.exec(text);
	if (!match) return text;
	const bytes = (match[2] ?? "").trim().split(" ").length;
	return `${text.slice(0, (match[1] ?? "").length + 2)} ${Array(bytes).fill("**").join(" ")}>`;
}

function masked(text: string, tsi: string | null): string {
	const shown = tsi === null || tsi.trim() === "" ? null : (maskSender(tsi) ?? "");
	const named = shown === null ? text : text.split(tsi as string).join(shown);
	return maskFrame(named);
}

function newPage(pages: PageSession[], page: number, at: string): PageSession {
	let found = pages.find((entry) => entry.page === page);
	if (found === undefined) {
		found = { page, at, time: null, frames: 0, pprs: 0, lines: null, postPage: null, answer: null };
		pages.push(found);
	}
	return found;
}

/** `frames`: the ECM frames of the current block logged one by one, before HylaFAX sums the block up. */
type State = { session: T30Session; page: PageSession | null; at: string; frames: number };

// Each rule reads one kind of line into the session.
const RULES: [RegExp, (state: State, match: RegExpMatchArray) => void][] = [
	[
		/^REMOTE TSI "(.*)"$/,
		(s, m) => {
			s.session.tsi = m[1] ?? null;
		},
	],
	[
		/^RECV recv DCS/,
		(s) => {
			s.session.requested = [];
		},
	],
	[/^REMOTE wants (.*)$/, (s, m) => s.session.requested.push(m[1] ?? "")],
	[
		/^RECV training at (.*)$/,
		(s, m) => s.session.trainings.push({ at: s.at, rate: m[1] ?? "", tcf: null, ok: null }),
	],
	[
		/^RECV: TCF (.*)$/,
		(s, m) =>
			lastTraining(s, (t) => {
				t.tcf = m[1] ?? null;
			}),
	],
	[
		/^TRAINING (succeeded|failed)/,
		(s, m) =>
			lastTraining(s, (t) => {
				t.ok = m[1] === "succeeded";
			}),
	],
	[
		/^RECV: begin page/,
		(s) => {
			s.page = newPage(s.session.pages, s.session.pages.length + 1, s.at);
		},
	],
	[
		/^RECV received frame number/,
		(s) => {
			currentPage(s);
			s.frames += 1;
		},
	],
	[
		/^RECV received (\d+) frames of block \d+ of page (\d+)/,
		(s, m) => {
			s.page = newPage(s.session.pages, Number(m[2]), s.page?.at ?? s.at);
			s.page.frames += Number(m[1]);
			s.frames = 0;
		},
	],
	[
		/^RECV send PPR/,
		(s) => {
			const page = currentPage(s);
			page.pprs += 1;
			page.answer = "PPR";
		},
	],
	[
		/^RECV: (\d+) total lines, (\d+) bad lines, (\d+) consecutive bad lines/,
		(s, m) => {
			currentPage(s).lines = { total: Number(m[1]), bad: Number(m[2]), consecutiveBad: Number(m[3]) };
		},
	],
	[
		/^RECV: \d+ bytes of data, (\d+) total lines$/,
		(s, m) => {
			currentPage(s).lines ??= { total: Number(m[1]), bad: 0, consecutiveBad: 0 };
		},
	],
	[
		/^RECV recv (MPS|EOP|EOM|PRI-MPS|PRI-EOP|PRI-EOM) /,
		(s, m) => {
			if (s.page) s.page.postPage = m[1] ?? null;
		},
	],
	[
		/^RECV send (MCF|RTN|RTP|PIN|PIP) /,
		(s, m) => {
			if (s.page) s.page.answer = m[1] ?? null;
		},
	],
	[
		/^RECV FAX \(\d+\): from .*, page (\d+) in ([\d:]+),/,
		(s, m) => {
			newPage(s.session.pages, Number(m[1]), s.at).time = m[2] ?? null;
			s.page = null;
		},
	],
	[
		/^RECV recv DCN/,
		(s) => {
			s.session.ending = { clean: true, reason: null, at: s.at };
		},
	],
];

/** The page being received: the next one when none is. */
function currentPage(state: State): PageSession {
	state.page ??= newPage(state.session.pages, state.session.pages.length + 1, state.at);
	return state.page;
}

function lastTraining(state: State, change: (training: Training) => void): void {
	const training = state.session.trainings.at(-1);
	if (training !== undefined) change(training);
}

// What HylaFAX logs when a receive fails (faxd/Class1Recv.c++, FaxRecv.c++).
// The line that gives the reason, when HylaFAX wrote it; else the first error line.
const ABNORMAL = /^RECV FAX \(\d+\): session with .* terminated abnormally: (.*)$/;
const ERROR =
	/^(?:RECV FAX: |RECV FAX \(\d+\): )?(RSPREC error\/.*|COMREC .*|No sender protocol.*|Failed to .*|Failure to .*)$/;

/**
 * Reads an error line into the ending; returns whether the final reason was
 * read. HylaFAX's own "RECV FAX: <reason>" outweighs a DCN seen before it: a
 * sender that gives up in the handshake sends one too (RSPREC error/got DCN).
 */
function readEnding(session: T30Session, text: string, clock: string, final: boolean): boolean {
	const abnormal = ABNORMAL.exec(text);
	const error = abnormal ?? (final ? null : ERROR.exec(text));
	const stated = error !== null && text.startsWith("RECV FAX: ");
	if (error && (!session.ending.clean || stated))
		session.ending = { clean: false, reason: error[1] ?? null, at: clock };
	return final || abnormal !== null;
}

// The lines that are evidence of what the line and the two machines did
// (Class1Recv.c++, Class1.c++): our DIS (FCF 01 or 80 with the X bit), the
// sender's DCS, each frame that arrived damaged, each command repeat (CRP)
// either way, the sender's DCN, and the modem's own errors.
const STEPS: [RegExp, StepKind][] = [
	[/^<-- HDLC<\d+:FF C[08] (?:01|80)\b/, "dis-sent"],
	[/^RECV recv DCS/, "dcs-received"],
	[/^(?:FCS error|RECV frame FCS check failed)/, "frame-damaged"],
	[/^RECV send CRP/, "crp-sent"],
	[/^RECV recv CRP/, "crp-received"],
	[/^RECV recv DCN/, "dcn-received"],
	[/^MODEM (?:READ|WRITE) ERROR/, "modem-error"],
	[/^(?:Timeout awaiting|MODEM TIMEOUT)/, "timeout"],
];

/**
 * Reads a session log line by line, as HylaFAX writes it: the same reader
 * serves a whole log at ingest and a log that is still growing.
 */
export class SessionReader {
	readonly #session: T30Session = {
		faxMachine: false,
		startedAt: null,
		tsi: null,
		requested: [],
		trainings: [],
		pages: [],
		ending: { clean: false, reason: null, at: null },
		answered: false,
		sessionEnded: false,
		steps: [],
		lines: [],
	};
	readonly #state: State = { session: this.#session, page: null, at: "", frames: 0 };
	#final = false;
	// Listening for the caller's V.21 frames (AT+FRH=3): a CONNECT there is the
	// caller's fax carrier, even when it hangs up before a whole frame came.
	#listening = false;

	/** Reads one line of the log; lines that are not HylaFAX's are passed over. */
	read(raw: string): void {
		const match = LINE.exec(raw.trimEnd());
		if (!match) return;
		const [, stamp = "", clock = "", text = ""] = match;
		const session = this.#session;
		session.startedAt ??= stamp;
		this.#state.at = clock;
		for (const [pattern, apply] of RULES) {
			const found = text.match(pattern);
			if (found) apply(this.#state, found);
		}
		this.#final = readEnding(session, text, clock, this.#final);
		this.#readCaller(text);
		const step = STEPS.find(([pattern]) => pattern.test(text));
		if (step !== undefined) session.steps.push({ at: clock, kind: step[1], line: text });
		if (text.startsWith("ANSWER: FAX CONNECTION")) session.answered = true;
		if (text === "SESSION END") {
			session.sessionEnded = true;
			session.ending.at ??= clock;
		}
		if (KEPT.test(text) && !DROPPED.test(text)) session.lines.push(`${clock} ${text}`);
	}

	#readCaller(text: string): void {
		if (/^--> HDLC|^RECV recv |^RECV training|^RECV frame FCS/.test(text)) this.#session.faxMachine = true;
		if (this.#listening && /^--> \[\d+:CONNECT\]/.test(text)) this.#session.faxMachine = true;
		if (/^<-- \[\d+:AT\+FRH=3/.test(text)) this.#listening = true;
		else if (text.startsWith("--> ") || text.startsWith("<-- [")) this.#listening = false;
	}

	/** The session as read so far; `reason` is what FaxRcvdCmd was given, when it ran. The TSI is masked in its lines. */
	session(reason: string | null = null): T30Session {
		const session = structuredClone(this.#session);
		// A block cut off before HylaFAX summed it up: its frames came all the same.
		const cut =
			this.#state.page === null
				? undefined
				: session.pages.find((page) => page.page === this.#state.page?.page);
		if (cut !== undefined) cut.frames += this.#state.frames;
		if (reason !== null && reason !== "") session.ending = { ...session.ending, clean: false, reason };
		session.lines = session.lines.map((line) => masked(line, session.tsi));
		session.steps = session.steps.map((step) => ({ ...step, line: masked(step.line, session.tsi) }));
		return session;
	}
}

/** The session of one receiving call, from its log; `reason` is what FaxRcvdCmd was given, when it ran. */
export function parseSessionLog(log: string, reason: string | null = null): T30Session {
	const reader = new SessionReader();
	for (const raw of log.split("\n")) reader.read(raw);
	return reader.session(reason);
}

// faxgetty's first line of a session: `SESSION BEGIN 000000022 18005551212`.
const SESSION_BEGIN = /^(\w{3} +\d+ \d\d:\d\d:\d\d\.\d\d): \[ *\d+\]: SESSION BEGIN (\d+)/m;

/**
 * The name of the call a session log tells: its commid and its first line's
 * time, so a receiver host whose commids start over never names two calls
 * alike. The live feed and the fax's hand-over name it the same way; null
 * before the log's first line came.
 */
export function callKeyOf(log: string): string | null {
	const match = SESSION_BEGIN.exec(log);
	return match === null ? null : `${match[2]}@${match[1]}`;
}

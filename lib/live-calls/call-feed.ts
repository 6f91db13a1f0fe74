// A call's session log fed line by line as HylaFAX writes it (`fax
// follow-call`, the demo's replay): the one reader of the call
// (lib/report/t30-session.ts) builds its model as the lines come, and the
// feed writes how far it has come to calls_in_progress, where every API
// instance reads it. Writes are spaced WRITE_EVERY_MS apart at most, the
// first line after a pause written at once, so the pages are never more than
// that behind the log, and a call's hundreds of ECM frame lines cost a few
// writes a second.
import type { FaxStore } from "../db/index.ts";
import { cutSender, maskSender, storedSenderKey } from "../fax/index.ts";
import { type CallReport, callKeyOf, callReportOf, liveProgress, SessionReader } from "../report/index.ts";
import { errorMessage, realTimer, type SetTimer } from "../util/index.ts";
import type { CallView } from "./call-view.ts";

const WRITE_EVERY_MS = 200;
// Lines that show the sender's side is there: its frames, its carrier, what we read of its pages.
const HEARD =
	/\]: (?:--> HDLC|--> \[\d+:CONNECT\]|RECV recv |RECV received |RECV: |RECV training|REMOTE |TRAINING|ANSWER: )/;
// HylaFAX is done with the call: its session is over, or the modem was closed under it.
const OVER = /\]: (?:SESSION END$|CLOSE \/dev\/)/;
// faxgetty names the session on its first line (SESSION BEGIN): a log that
// does not within its first lines is not one to show (nothing is written).
const HEAD_LINES = 10;

export interface CallFeedOptions {
	clock?: () => number;
	setTimer?: SetTimer;
	/** Told when a write fails after one that did not (not at each retry); the next line tries again. */
	failed?: (message: string) => void;
}

export class CallFeed {
	readonly #store: FaxStore;
	readonly #clock: () => number;
	readonly #setTimer: SetTimer;
	readonly #failed: (message: string) => void;
	readonly #reader = new SessionReader();
	#head: string[] = [];
	#key: string | null = null;
	#startedAt = 0;
	#lineAt = 0;
	#heardAt: number | null = null;
	#ended = false;
	#over = false;
	#dirty = false;
	#failing = false;
	#lastWrite = Number.NEGATIVE_INFINITY;
	#cancelTimer: (() => void) | null = null;
	#writing: Promise<void> = Promise.resolve();

	constructor(store: FaxStore, options: CallFeedOptions = {}) {
		this.#store = store;
		this.#clock = options.clock ?? Date.now;
		this.#setTimer = options.setTimer ?? realTimer;
		this.#failed = options.failed ?? (() => {});
	}

	/** HylaFAX is done with the call (its last line came), and when the latest line came (ms). */
	get over(): boolean {
		return this.#over;
	}

	get lineAt(): number {
		return this.#lineAt;
	}

	/** The call's name (callKeyOf), once its first line came. */
	get key(): string | null {
		return this.#key;
	}

	/** Reads one line of the log as it was written. */
	line(raw: string): void {
		const now = this.#clock();
		this.#reader.read(raw);
		if (this.#key === null && this.#head.length < HEAD_LINES) {
			this.#head.push(raw);
			this.#key = callKeyOf(this.#head.join("\n"));
			if (this.#key !== null) this.#startedAt = now;
		}
		this.#lineAt = now;
		if (HEARD.test(raw)) this.#heardAt = now;
		if (OVER.test(raw)) {
			this.#over = true;
			this.#ended = true;
		}
		this.#dirty = true;
		this.#schedule();
	}

	/** The call's model so far, as the fax's report will keep it. */
	call(): CallReport {
		return callReportOf(this.#reader.session(), false);
	}

	/** The log is closed: writes the call as ended, and waits until that write is done. */
	async end(): Promise<void> {
		this.#cancelTimer?.();
		this.#cancelTimer = null;
		this.#ended = true;
		this.#dirty = true;
		await this.#write();
	}

	#schedule(): void {
		if (this.#cancelTimer !== null || this.#key === null) return;
		const wait = Math.max(0, this.#lastWrite + WRITE_EVERY_MS - this.#clock());
		this.#cancelTimer = this.#setTimer(() => {
			this.#cancelTimer = null;
			void this.#write();
		}, wait);
	}

	#write(): Promise<void> {
		this.#writing = this.#writing.then(() => this.#writeNow());
		return this.#writing;
	}

	async #writeNow(): Promise<void> {
		const key = this.#key;
		if (!this.#dirty || key === null) return;
		this.#dirty = false;
		this.#lastWrite = this.#clock();
		const session = this.#reader.session();
		const call = callReportOf(session, false);
		const view: CallView = { ...liveProgress(call, this.#ended), heardAt: this.#heardAt };
		const sender = session.tsi === null || session.tsi.trim() === "" ? null : cutSender(session.tsi);
		try {
			await this.#store.putCall({
				call_key: key,
				sender: maskSender(sender),
				sender_key: storedSenderKey(sender),
				started_at: this.#startedAt,
				line_at: this.#lineAt,
				ended: this.#ended,
				view: JSON.stringify(view),
				call: JSON.stringify(call),
			});
			this.#failing = false;
		} catch (error) {
			if (!this.#failing)
				this.#failed(`${key}: the call's progress could not be written: ${errorMessage(error)}`);
			this.#failing = true;
			this.#dirty = true;
			if (!this.#ended) this.#schedule();
		}
	}
}

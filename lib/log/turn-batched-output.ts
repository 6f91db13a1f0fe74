import { writeSync } from "node:fs";

/**
 * Log bytes held while standard output takes nothing (a stalled log reader, a
 * log driver under backpressure). Past this, lines are dropped and counted.
 */
export const LOG_BUFFER_BYTES = 1024 * 1024;
/**
 * The part of the buffer access lines may not take: when they are being
 * dropped, lifecycle and error lines still fit.
 */
export const KEPT_LINES_RESERVE_BYTES = 64 * 1024;
/** How soon a stalled output is tried again. */
const RETRY_MS = 50;
/** How long the process waits, when exiting, for a slow reader to take what is held. */
const EXIT_WAIT_MS = 2000;
const pause = new Int32Array(new SharedArrayBuffer(4));

function codeOf(error: unknown): unknown {
	return (error as { code?: unknown } | null)?.code;
}

/**
 * A log destination that never blocks answering. The lines of one event-loop
 * turn are encoded into one buffer kept for the life of the process and
 * written with one system call when the turn ends (a write per line took about
 * a fifth of the CPU of a short answer; a joined string and a new Buffer per
 * turn a third of the access log's cost).
 *
 * Standard output is non-blocking (Bun makes it so once `process.stdout` is
 * touched; `standardOutput()` does). When it takes nothing, the lines wait in
 * the buffer and the write is tried again every RETRY_MS; while it is full,
 * access lines (`writeSheddable`) are dropped first and other lines kept while
 * they fit, the drops counted. Once everything held is written, one line says
 * how many were dropped. The anchors: logback's AsyncAppender with
 * `neverBlock`, Envoy's buffered access logs.
 *
 * On exit, what is held is written, waiting up to EXIT_WAIT_MS for a slow
 * reader, also after process.exit() or an uncaught error.
 */
export class TurnBatchedOutput {
	readonly #fd: number;
	readonly #buffer = Buffer.allocUnsafe(LOG_BUFFER_BYTES);
	#used = 0;
	#scheduled = false;
	#retry: ReturnType<typeof setTimeout> | undefined;
	#closed = false;
	#droppedSinceReport = 0;
	#droppedLines = 0;

	constructor(fd: number) {
		this.#fd = fd;
		process.on("exit", () => this.#writeAtExit());
	}

	/** Lines dropped since the process started, because the output was not taking them. */
	get droppedLines(): number {
		return this.#droppedLines;
	}

	/** A lifecycle or error line: kept while it fits in the whole buffer. */
	write(line: string): void {
		this.#append(line, LOG_BUFFER_BYTES);
	}

	/** An access line: dropped first, once the buffer is full but for its reserve. */
	writeSheddable(line: string): void {
		this.#append(line, LOG_BUFFER_BYTES - KEPT_LINES_RESERVE_BYTES);
	}

	/** Writes what the output takes now, without waiting. */
	flush(): void {
		this.#scheduled = false;
		this.#drain();
		if (this.#used > 0 && !this.#closed && this.#retry === undefined) {
			this.#retry = setTimeout(() => {
				this.#retry = undefined;
				this.flush();
			}, RETRY_MS);
			this.#retry.unref();
		}
	}

	#append(line: string, limit: number): void {
		if (this.#closed) return;
		// UTF-8 takes at most 3 bytes per UTF-16 unit: only a line that might not fit is measured.
		if (this.#used + line.length * 3 > limit) {
			this.#drain();
			if (this.#used + Buffer.byteLength(line) > limit) {
				this.#droppedSinceReport++;
				this.#droppedLines++;
				return;
			}
		}
		this.#used += this.#buffer.write(line, this.#used);
		if (this.#scheduled || this.#retry !== undefined) return;
		this.#scheduled = true;
		setImmediate(() => this.flush());
	}

	/** Writes until everything held is out or the output would block; then reports drops once all is out. */
	#drain(): void {
		while (this.#used > 0 && !this.#closed) {
			const written = this.#writeSome();
			if (written === 0) return;
			this.#buffer.copyWithin(0, written, this.#used);
			this.#used -= written;
			if (this.#used === 0 && this.#droppedSinceReport > 0) this.#reportDrops();
		}
	}

	#reportDrops(): void {
		const dropped = this.#droppedSinceReport;
		this.#droppedSinceReport = 0;
		this.#used += this.#buffer.write(
			`{"level":"warn","time":"${new Date().toISOString()}","dropped":${dropped},"msg":"log lines dropped: standard output was not taking them"}\n`,
			this.#used,
		);
	}

	/** Bytes written now from the start of the buffer; 0 when the output would block. */
	#writeSome(): number {
		try {
			return writeSync(this.#fd, this.#buffer, 0, this.#used);
		} catch (error) {
			if (codeOf(error) === "EAGAIN") return 0;
			// Nobody reads the log any more (a closed pipe, a lost file):
			// serving goes on without it rather than failing every answer.
			this.#closed = true;
			return 0;
		}
	}

	#writeAtExit(): void {
		const deadline = performance.now() + EXIT_WAIT_MS;
		for (;;) {
			this.#drain();
			if (this.#used === 0 || this.#closed || performance.now() > deadline) return;
			Atomics.wait(pause, 0, 0, 1);
		}
	}
}

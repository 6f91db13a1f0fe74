import { writeSync } from "node:fs";

const RETRY_MS = 1;
const pause = new Int32Array(new SharedArrayBuffer(4));

function codeOf(error: unknown): unknown {
	return (error as { code?: unknown } | null)?.code;
}

/** Bytes gathered before a write; a turn with more is written in several. */
const BUFFER_BYTES = 64 * 1024;

/**
 * A log destination that writes the lines of one event-loop turn with one
 * synchronous write when the turn ends, rather than one write per line: the
 * answers of a busy turn share a system call. Lines are encoded straight into
 * one buffer kept for the life of the process: under load a joined string and
 * a new Buffer per turn were, by profile, a third of the access log's cost.
 * Synchronous writes leave nothing under way when the process exits, so what
 * is pending is written on exit, also after process.exit() or an uncaught
 * error; only a kill no handler sees (SIGKILL) loses the lines of the turn it
 * interrupts.
 */
export class TurnBatchedOutput {
	readonly #fd: number;
	readonly #buffer = Buffer.allocUnsafe(BUFFER_BYTES);
	#used = 0;
	#scheduled = false;
	#closed = false;

	constructor(fd: number) {
		this.#fd = fd;
		process.on("exit", () => this.flush());
	}

	write(line: string): void {
		if (this.#closed) return;
		// A line that might not fit (UTF-8 takes at most 3 bytes per UTF-16 unit) goes after what is pending.
		if (this.#used + line.length * 3 > BUFFER_BYTES) {
			this.flush();
			if (line.length * 3 > BUFFER_BYTES) {
				this.#writeAll(Buffer.from(line));
				return;
			}
		}
		this.#used += this.#buffer.write(line, this.#used);
		if (this.#scheduled) return;
		this.#scheduled = true;
		setImmediate(() => this.flush());
	}

	/** Writes every pending line now. */
	flush(): void {
		this.#scheduled = false;
		if (this.#used === 0) return;
		const pending = this.#buffer.subarray(0, this.#used);
		this.#used = 0;
		this.#writeAll(pending);
	}

	#writeAll(bytes: Uint8Array): void {
		let rest = bytes;
		while (rest.length > 0 && !this.#closed) {
			try {
				rest = rest.subarray(writeSync(this.#fd, rest));
			} catch (error) {
				// A full pipe: wait for the reader, as a blocking write would.
				if (codeOf(error) === "EAGAIN") {
					Atomics.wait(pause, 0, 0, RETRY_MS);
					continue;
				}
				// Nobody reads the log any more (a closed pipe, a lost file):
				// serving goes on without it rather than failing every answer.
				this.#closed = true;
			}
		}
	}
}

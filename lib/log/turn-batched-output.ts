import { writeSync } from "node:fs";

const RETRY_MS = 1;
const pause = new Int32Array(new SharedArrayBuffer(4));

function codeOf(error: unknown): unknown {
	return (error as { code?: unknown } | null)?.code;
}

/**
 * A log destination that writes the lines of one event-loop turn with one
 * synchronous write when the turn ends, rather than one write per line: the
 * answers of a busy turn share a system call. Synchronous writes leave nothing
 * under way when the process exits, so what is pending is written on exit,
 * also after process.exit() or an uncaught error; only a kill no handler sees
 * (SIGKILL) loses the lines of the turn it interrupts.
 */
export class TurnBatchedOutput {
	readonly #fd: number;
	#pending: string[] = [];
	#scheduled = false;
	#closed = false;

	constructor(fd: number) {
		this.#fd = fd;
		process.on("exit", () => this.flush());
	}

	write(line: string): void {
		if (this.#closed) return;
		this.#pending.push(line);
		if (this.#scheduled) return;
		this.#scheduled = true;
		setImmediate(() => this.flush());
	}

	/** Writes every pending line now. */
	flush(): void {
		this.#scheduled = false;
		if (this.#pending.length === 0) return;
		let bytes = Buffer.from(this.#pending.join(""));
		this.#pending = [];
		while (bytes.length > 0) {
			try {
				bytes = bytes.subarray(writeSync(this.#fd, bytes));
			} catch (error) {
				// A full pipe: wait for the reader, as a blocking write would.
				if (codeOf(error) === "EAGAIN") {
					Atomics.wait(pause, 0, 0, RETRY_MS);
					continue;
				}
				// Nobody reads the log any more (a closed pipe, a lost file):
				// serving goes on without it rather than failing every answer.
				this.#closed = true;
				this.#pending = [];
				return;
			}
		}
	}
}

/**
 * A loopback TCP proxy that holds every chunk `delayMs` in each direction
 * before passing it on: a database in another zone, on a kernel without netem
 * (with the timers' granularity, about 2 ms a round trip for 1 ms). Each
 * direction keeps its order; a side that closes is closed on the other once
 * what it sent has been passed on.
 *
 * Run as a process of its own (`bun testkit/delay-proxy.ts TARGET_PORT
 * [DELAY_MS]`), so that a load generator beside it does not delay it further:
 * it prints `delay proxy listening on 127.0.0.1:PORT` and runs until killed.
 */

/** One direction of a connection: chunks held until due, then written in order. */
class DelayedPipe {
	readonly #delayMs: number;
	/** Chunks not yet due, oldest first. */
	#held: { dueMs: number; bytes: Uint8Array }[] = [];
	/** Bytes due but not yet taken by the socket (it is full until `drain`). */
	#backlog: Uint8Array[] = [];
	#timer: ReturnType<typeof setTimeout> | null = null;
	#target: Bun.Socket<unknown> | null = null;
	#ending = false;

	constructor(delayMs: number) {
		this.#delayMs = delayMs;
	}

	/** The socket the chunks go to, once it is open. */
	attach(target: Bun.Socket<unknown>): void {
		this.#target = target;
		this.#release();
	}

	push(chunk: Uint8Array): void {
		// A copy: the chunk's memory is the socket's to reuse after the callback.
		this.#held.push({ dueMs: performance.now() + this.#delayMs, bytes: new Uint8Array(chunk) });
		this.#schedule();
	}

	/** Ends the target once everything pushed has been written. */
	end(): void {
		this.#ending = true;
		this.#release();
	}

	/** The target took what it could: write the backlog. */
	drain(): void {
		const target = this.#target;
		while (target !== null && this.#backlog.length > 0) {
			const bytes = this.#backlog[0] as Uint8Array;
			const written = target.write(bytes);
			if (written < bytes.length) {
				this.#backlog[0] = bytes.subarray(Math.max(0, written));
				return;
			}
			this.#backlog.shift();
		}
		if (this.#ending && this.#held.length === 0 && this.#backlog.length === 0) target?.end();
	}

	stop(): void {
		if (this.#timer !== null) clearTimeout(this.#timer);
		this.#timer = null;
		this.#held = [];
	}

	#schedule(): void {
		const next = this.#held[0];
		if (this.#timer !== null || next === undefined) return;
		this.#timer = setTimeout(
			() => {
				this.#timer = null;
				this.#release();
			},
			Math.max(0, next.dueMs - performance.now()),
		);
	}

	/** Moves every chunk that is due to the backlog and writes it. */
	#release(): void {
		if (this.#target === null) return;
		const now = performance.now();
		while (this.#held.length > 0 && (this.#held[0]?.dueMs ?? 0) <= now)
			this.#backlog.push((this.#held.shift() as { bytes: Uint8Array }).bytes);
		this.drain();
		this.#schedule();
	}
}

interface Connection {
	/** Client → target. */
	up: DelayedPipe;
	/** Target → client. */
	down: DelayedPipe;
}

export interface DelayProxy {
	port: number;
	stop(): void;
}

/** Listens on a free loopback port and passes each connection on to `targetPort`, `delayMs` late each way. */
export function startDelayProxy(options: {
	targetPort: number;
	delayMs: number;
	targetHost?: string;
}): DelayProxy {
	const { targetPort, delayMs } = options;
	const listener = Bun.listen<Connection>({
		hostname: "127.0.0.1",
		port: 0,
		socket: {
			open(client) {
				const connection: Connection = {
					up: new DelayedPipe(delayMs),
					down: new DelayedPipe(delayMs),
				};
				client.data = connection;
				// Each chunk leaves as it is due: Nagle's wait for the peer's ACK would add its own delay.
				client.setNoDelay(true);
				connection.down.attach(client as Bun.Socket<unknown>);
				Bun.connect<null>({
					hostname: options.targetHost ?? "127.0.0.1",
					port: targetPort,
					socket: {
						open(upstream) {
							upstream.setNoDelay(true);
							connection.up.attach(upstream as Bun.Socket<unknown>);
						},
						data: (_, chunk) => connection.down.push(chunk),
						drain: () => connection.up.drain(),
						end: () => connection.down.end(),
						close: () => connection.down.end(),
						error: () => connection.down.end(),
						connectError: () => {
							client.end();
						},
					},
				}).catch(() => client.end());
			},
			data: (client, chunk) => client.data.up.push(chunk),
			drain: (client) => client.data.down.drain(),
			end: (client) => client.data.up.end(),
			close: (client) => client.data.up.end(),
			error: (client) => client.data.up.end(),
		},
	});
	return {
		port: listener.port,
		stop() {
			listener.stop(true);
		},
	};
}

if (import.meta.main) {
	const [target, delay] = process.argv.slice(2);
	const targetPort = Number(target);
	const delayMs = Number(delay ?? 1);
	if (!Number.isInteger(targetPort) || targetPort <= 0 || !(delayMs >= 0)) {
		console.error("usage: bun testkit/delay-proxy.ts TARGET_PORT [DELAY_MS]");
		process.exit(2);
	}
	const proxy = startDelayProxy({ targetPort, delayMs });
	console.log(`delay proxy listening on 127.0.0.1:${proxy.port}`);
}

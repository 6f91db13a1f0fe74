/**
 * A closed-loop HTTP/1.1 load: `connections` keep-alive sockets, each sending
 * the next request as soon as the last answer is complete. Requests are
 * encoded once up front and answers are only framed (status, Content-Length),
 * so the load generator spends as little of the shared CPU as it can.
 */
export interface LoadResult {
	requests: number;
	perSecond: number;
	p50ms: number;
	p99ms: number;
	statuses: Record<number, number>;
	/** Every answer's time in ms, ascending: loads of one target can be merged (mergeLoads). */
	latenciesMs?: number[];
}

export interface LoadTarget {
	port: number;
	/** Request paths, sent in turn. */
	paths: string[];
	/** X-Forwarded-For values, sent in turn beside the paths; none when empty. */
	clients?: string[];
	/** The n-th request's X-Forwarded-For instead of `clients`: a flood of distinct addresses. */
	clientOf?: (n: number) => string;
	/** Ends the load after this many requests, if that comes before its time. */
	maxRequests?: number;
	/** Further request header lines, each ending in CRLF (`Accept-Encoding: br\r\n`). */
	headers?: string;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = "\r\ncontent-length:";

/** Encodes every path × client pairing as its request bytes, at most 10,000 of them. */
function encodeRequests(target: LoadTarget): Buffer[] {
	const clients = target.clients?.length ? target.clients : [null];
	const count = Math.max(target.paths.length, Math.min(clients.length, 10_000));
	return Array.from({ length: count }, (_, i) => {
		const client = clients[i % clients.length];
		const forwarded = client === null ? "" : `X-Forwarded-For: ${client}\r\n`;
		return Buffer.from(
			`GET ${target.paths[i % target.paths.length]} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: testfax-bench/1.0\r\n${forwarded}${target.headers ?? ""}\r\n`,
		);
	});
}

/** Bytes of the whole answer once its head is in `buffer`; null while the head is incomplete. */
function answerLength(buffer: Buffer): { length: number; status: number } | null {
	const end = buffer.indexOf(HEADER_END);
	if (end === -1) return null;
	const head = buffer.toString("latin1", 0, end).toLowerCase();
	const at = head.indexOf(CONTENT_LENGTH);
	const bodyLength = at === -1 ? 0 : Number.parseInt(head.slice(at + CONTENT_LENGTH.length), 10);
	return { length: end + HEADER_END.length + bodyLength, status: Number(head.slice(9, 12)) };
}

function flooding(path: string, clientOf: (n: number) => string): (n: number) => string {
	return (n) =>
		`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: testfax-bench/1.0\r\nX-Forwarded-For: ${clientOf(n)}\r\n\r\n`;
}

export async function runLoad(target: LoadTarget, seconds: number, connections: number): Promise<LoadResult> {
	const requests = encodeRequests(target);
	const flood = target.clientOf && flooding(target.paths[0] ?? "/", target.clientOf);
	const maxRequests = target.maxRequests ?? Number.POSITIVE_INFINITY;
	const latencies: number[] = [];
	const statuses: Record<number, number> = {};
	let next = 0;
	const began = performance.now();
	const end = began + seconds * 1000;

	const connection = () =>
		new Promise<void>((resolve, reject) => {
			let pending: Buffer = Buffer.alloc(0);
			let sentAt = 0;
			const send = (socket: Bun.Socket) => {
				sentAt = performance.now();
				const n = next++;
				socket.write(flood ? flood(n) : (requests[n % requests.length] as Buffer));
			};
			Bun.connect({
				hostname: "127.0.0.1",
				port: target.port,
				socket: {
					open: send,
					data(socket, chunk) {
						pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
						const answer = answerLength(pending);
						if (answer === null || pending.length < answer.length) return;
						pending = pending.subarray(answer.length);
						const now = performance.now();
						latencies.push(now - sentAt);
						statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
						if (now < end && next < maxRequests) send(socket);
						else socket.end();
					},
					close: () => resolve(),
					error: (_, error) => reject(error),
					connectError: (_, error) => reject(error),
				},
			}).catch(reject);
		});

	await Promise.all(Array.from({ length: connections }, connection));
	const elapsed = (performance.now() - began) / 1000;
	latencies.sort((a, b) => a - b);
	return {
		requests: latencies.length,
		perSecond: latencies.length / elapsed,
		p50ms: quantile(latencies, 0.5),
		p99ms: quantile(latencies, 0.99),
		statuses,
		latenciesMs: latencies,
	};
}

const quantile = (sorted: number[], q: number) =>
	sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/**
 * Loads of one target (the rounds of a comparison) as one: requests per second
 * over their time together, p50 and p99 over all their answers.
 */
export function mergeLoads(loads: LoadResult[]): LoadResult {
	const latencies = loads.flatMap((load) => load.latenciesMs ?? []).sort((a, b) => a - b);
	const statuses: Record<number, number> = {};
	for (const [status, count] of loads.flatMap((load) => Object.entries(load.statuses)))
		statuses[Number(status)] = (statuses[Number(status)] ?? 0) + count;
	const requests = loads.reduce((sum, load) => sum + load.requests, 0);
	const seconds = loads.reduce((sum, load) => sum + load.requests / load.perSecond, 0);
	return {
		requests,
		perSecond: requests / seconds,
		p50ms: quantile(latencies, 0.5),
		p99ms: quantile(latencies, 0.99),
		statuses,
		latenciesMs: latencies,
	};
}

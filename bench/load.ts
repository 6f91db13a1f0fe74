/** A closed-loop HTTP load: `connections` clients each sending the next request when the last returns. */
export interface LoadResult {
	requests: number;
	perSecond: number;
	p50ms: number;
	p99ms: number;
	statuses: Record<number, number>;
}

export async function runLoad(urls: string[], seconds: number, connections: number): Promise<LoadResult> {
	const latencies: number[] = [];
	const statuses: Record<number, number> = {};
	const end = performance.now() + seconds * 1000;
	const headers = { "user-agent": "testfax-bench/1.0" };
	let next = 0;
	async function client() {
		while (performance.now() < end) {
			const url = urls[next++ % urls.length] ?? "";
			const start = performance.now();
			const response = await fetch(url, { headers });
			await response.arrayBuffer();
			latencies.push(performance.now() - start);
			statuses[response.status] = (statuses[response.status] ?? 0) + 1;
		}
	}
	const began = performance.now();
	await Promise.all(Array.from({ length: connections }, client));
	const elapsed = (performance.now() - began) / 1000;
	latencies.sort((a, b) => a - b);
	const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
	return {
		requests: latencies.length,
		perSecond: latencies.length / elapsed,
		p50ms: at(0.5),
		p99ms: at(0.99),
		statuses,
	};
}

import { sample } from "./prometheus.ts";

/** Every answer of a load run by status; `failed` holds requests that got no answer at all. */
export interface LoadTally {
	answers: number;
	statuses: Record<number, number>;
	failed: string[];
}

export interface Load {
	/** The tally so far. */
	readonly tally: LoadTally;
	/** Stops the loops and resolves once every request in flight is answered. */
	stop(): Promise<LoadTally>;
}

/** An address of its own for each of `count` clients, behind a trusted proxy. */
export function clientAddresses(count: number, network = 10): string[] {
	return Array.from(
		{ length: count },
		(_, index) => `${network}.${index >> 16}.${(index >> 8) & 255}.${index & 255}`,
	);
}

/**
 * `workers` loops asking for the list as fast as the server answers, each
 * request from the next of `addresses` (sent as X-Forwarded-For), so the
 * counts spread over many keys and none of them runs out during a test.
 */
export function startLoad(url: string, addresses: string[], workers = 16): Load {
	const tally: LoadTally = { answers: 0, statuses: {}, failed: [] };
	let stopped = false;
	let next = 0;
	const loop = async () => {
		while (!stopped) {
			const address = addresses[next++ % addresses.length] ?? "";
			try {
				const response = await fetch(`${url}/api/faxes`, { headers: { "x-forwarded-for": address } });
				await response.arrayBuffer();
				tally.answers++;
				tally.statuses[response.status] = (tally.statuses[response.status] ?? 0) + 1;
			} catch (error) {
				tally.failed.push(String(error));
			}
		}
	};
	const loops = Array.from({ length: workers }, loop);
	return {
		tally,
		async stop() {
			stopped = true;
			await Promise.all(loops);
			return tally;
		},
	};
}

/** What the admin listener says of the count: where it is now, its mode, and the counters. */
export async function rateLimitReport(adminUrl: string) {
	const ready = (await (await fetch(`${adminUrl}/readyz`)).json()) as {
		rate_limit: string;
		redis_mode: string;
	};
	const metrics = await (await fetch(`${adminUrl}/metrics`)).text();
	return {
		backend: ready.rate_limit,
		mode: ready.redis_mode,
		countedInMemory: sample(metrics, "testfax_rate_limit_counted_in_memory_total") ?? Number.NaN,
		fallbacks: sample(metrics, "testfax_rate_limit_fallbacks_total") ?? Number.NaN,
	};
}

/** The statuses of `count` requests in a row from one client address. */
export async function statusesFrom(url: string, address: string, count: number): Promise<number[]> {
	const statuses: number[] = [];
	for (let index = 0; index < count; index++) {
		const response = await fetch(`${url}/api/faxes`, { headers: { "x-forwarded-for": address } });
		await response.arrayBuffer();
		statuses.push(response.status);
	}
	return statuses;
}

/** 60 answers of 200, then a 429: a fresh client's first minute under the default limit. */
export const SIXTY_THEN_429 = [...Array.from({ length: 60 }, () => 200), 429];

// Runs the whole suite in parallel with its files in a shuffled order, so a
// test that depends on what another file left behind fails here. The seed is
// printed first; SHUFFLE_SEED=<seed> repeats that order. Arguments go on to
// `bun test` (e.g. --parallel=2). Bun's own --randomize shuffles the tests
// inside each file as well, which the suite's files do not promise to allow.
import { Glob } from "bun";

/** mulberry32: a small seeded generator, so one seed always gives one order. */
function seeded(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export function shuffled<T>(items: T[], seed: number): T[] {
	const random = seeded(seed);
	const out = [...items];
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[out[i], out[j]] = [out[j] as T, out[i] as T];
	}
	return out;
}

async function main(): Promise<number> {
	const seed = Number(process.env.SHUFFLE_SEED ?? Math.floor(Math.random() * 2 ** 32));
	const files = (await Array.fromAsync(new Glob("test/**/*.test.ts").scan("."))).sort();
	console.log(
		`shuffled-suite: seed ${seed} (SHUFFLE_SEED=${seed} repeats this order), ${files.length} files`,
	);
	const args = process.argv.slice(2);
	const parallel = args.some((arg) => arg.startsWith("--parallel")) ? [] : ["--parallel=4"];
	const child = Bun.spawn(
		[process.execPath, "test", ...parallel, ...args, ...shuffled(files, seed).map((file) => `./${file}`)],
		{ stdio: ["inherit", "inherit", "inherit"] },
	);
	return await child.exited;
}

if (import.meta.main) process.exit(await main());

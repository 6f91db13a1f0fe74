// Runs the whole suite in parallel with its files in a shuffled order, so a
// test that depends on what another file left behind fails here. The seed is
// printed first; SHUFFLE_SEED=<seed> repeats that order. Arguments go on to
// `bun test` (e.g. --parallel=2). Bun's own --randomize shuffles the tests
// inside each file as well, which the suite's files do not promise to allow.
import { Glob } from "bun";
import fc from "fast-check";

/** The items in an order that one seed always gives (fast-check's seeded generator). */
function shuffled<T>(items: T[], seed: number): T[] {
	const [order] = fc.sample(fc.shuffledSubarray(items, { minLength: items.length }), { seed, numRuns: 1 });
	return order ?? items;
}

async function main(): Promise<number> {
	// fast-check takes a 32-bit integer seed.
	const seed = Number(process.env.SHUFFLE_SEED ?? Math.floor(Math.random() * 2 ** 31));
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

import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));

/** The oldest Node the README promises, e.g. "20.19.0" from "Needs Node 20.19 or later". */
const promised = /Needs Node (\d+\.\d+) or later/.exec(readme)?.[1];

test("the README's Node version is the one package.json declares", () => {
	expect(promised).toBeDefined();
	expect(pkg.engines.node).toBe(`>=${promised}`);
});

test("npm install on the README's Node warns of no package's engine (EBADENGINE)", () => {
	const refusing = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
		.filter(([, entry]) => entry.engines?.node !== undefined)
		.filter(([, entry]) => !Bun.semver.satisfies(`${promised}.0`, entry.engines?.node ?? ""))
		.map(([name, entry]) => `${name} wants node ${entry.engines?.node}`);
	expect(refusing).toEqual([]);
});

test("npm install warns of no install script: each is allowed or refused by name", () => {
	const named = Object.keys(pkg.allowScripts ?? {});
	const unnamed = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
		// "" is this package: its own preinstall (bin/check-node.mjs) is no dependency's script.
		.filter(([path, entry]) => path !== "" && entry.hasInstallScript === true)
		.map(([path]) => path.replace(/^.*node_modules\//, ""))
		.filter((name) => !named.includes(name));
	expect(unnamed).toEqual([]);
});

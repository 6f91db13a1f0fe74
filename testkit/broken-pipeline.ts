import { cpSync, mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "./server.ts";

const ROOT = join(import.meta.dir, "..");
// The code and configuration a command runs from: copied, because a module
// resolves its imports from where it really is, and a symlinked lib/ would
// find this checkout's node_modules.
const COPIED = [
	"bin",
	"lib",
	"routes",
	"package.json",
	"tsconfig.json",
	"bunfig.toml",
	"openapi.json",
	"docs",
];

/** A checkout copy: where its commands run, and how to delete it. */
export interface CheckoutCopy {
	dir: string;
	remove(): void;
}

/**
 * A copy of this checkout as `npm ci` leaves it when it drops sharp's
 * optional native package (@img/sharp-linux-x64): under Debian 12's Node 18,
 * or after a failed download, npm exits 0 without it. Nothing is mocked: sharp
 * itself (copied, so it resolves its packages here) really fails to load.
 * Every other package is this checkout's own, by symlink. Without
 * `wasmFallback` the tree is npm 10's and later's, which leave out
 * @img/sharp-wasm32; with it, Debian 12's npm 9.2's, which installs it, so
 * that sharp falls back to it (and its first call never returns under Bun).
 */
export function checkoutWithoutSharpBinary({ wasmFallback = false } = {}): CheckoutCopy {
	const dir = makeTempDir();
	for (const name of COPIED) cpSync(join(ROOT, name), join(dir, name), { recursive: true });
	const modules = join(dir, "node_modules");
	mkdirSync(join(modules, "@img"), { recursive: true });
	for (const name of readdirSync(join(ROOT, "node_modules"))) {
		if (name === "@img") continue;
		if (name === "sharp") cpSync(join(ROOT, "node_modules", name), join(modules, name), { recursive: true });
		else symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
	}
	for (const name of readdirSync(join(ROOT, "node_modules/@img"))) {
		if (!name.startsWith("sharp-linux-") && (wasmFallback || name !== "sharp-wasm32"))
			symlinkSync(join(ROOT, "node_modules/@img", name), join(modules, "@img", name));
	}
	return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// Lists the installed packages (node_modules paths) the server never loads,
// from package-lock.json: what production dependencies reach, not following
// type declarations (TypeScript, Bun's types, any @types/), Litestream's binary
// nor redoc's own dependencies
// (the server sends redoc's prebuilt standalone bundle and loads none of its
// code). Run in the image's dependency stage after `npm ci --omit=dev`:
// `node deploy/container/runtime-modules.mjs | xargs rm -rf`.
import { readFileSync } from "node:fs";

const TYPE_ONLY = new Set(["typescript", "@types/bun", "bun-types"]);
// Litestream replicates beside the server (deploy/replication), never inside
// this image; an email test's SPF, DKIM and DMARC are checked by the
// receivers' hand-over on their host (deploy/receivers), which loads mailauth
// only then (lib/report/mail-auth.ts): about 15 MB the server never loads.
const BESIDE_THE_SERVER = new Set(["@flydotio/litestream-linux-x64", "mailauth"]);
const BUNDLE_ONLY = new Set(["redoc"]);

const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
const packages = lock.packages;

/** Where `name`, required by the package at `from`, is installed: Node's lookup up the tree. */
function resolve(from, name) {
	for (let dir = from; ; ) {
		const candidate = `${dir === "" ? "" : `${dir}/`}node_modules/${name}`;
		if (packages[candidate] !== undefined) return candidate;
		if (dir === "") return null;
		const at = dir.lastIndexOf("/node_modules/");
		dir = at === -1 ? "" : dir.slice(0, at);
	}
}

const reached = new Set();
const queue = [""];
while (queue.length > 0) {
	const path = queue.pop();
	const entry = packages[path];
	const name = path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
	if (BUNDLE_ONLY.has(name)) continue;
	const wanted = { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies };
	for (const dependency of Object.keys(wanted)) {
		if (TYPE_ONLY.has(dependency) || BESIDE_THE_SERVER.has(dependency) || dependency.startsWith("@types/"))
			continue;
		const found = resolve(path, dependency);
		if (found !== null && !packages[found].dev && !reached.has(found)) {
			reached.add(found);
			queue.push(found);
		}
	}
}

for (const [path, entry] of Object.entries(packages)) {
	if (path !== "" && !entry.dev && !reached.has(path)) console.log(path);
}

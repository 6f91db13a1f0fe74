// npm runs this first in `npm install` and `npm ci` (package.json "preinstall").
// Under an older Node, npm would install anyway, leave out optional native
// packages (sharp's) and exit 0: Debian 12's own Node is 18.20.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
	console.error(
		`testfax-api needs Node 20.19 or later, this is ${process.versions.node}: see docs/operations/instance.md, "Node on Debian 12"`,
	);
	process.exit(1);
}

// What docs/operations/cluster.md, "Running it under systemd", has an
// operator install on each node: the units systemd accepts (with the paths of
// this checkout in place of /opt/testfax-api), the API instance's among them,
// one HAProxy file holding the route to the primary and the public front, and
// Debian's `15 main` cluster retired, again and again without harm.

import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir } from "../../testkit/server.ts";

const ROOT = join(import.meta.dir, "../..");
const CLUSTER = join(ROOT, "deploy/cluster");
const dir = makeTempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (command: string[], env: Record<string, string> = {}) => runCommand(command, { cwd: ROOT, env });

test("systemd accepts the etcd, Patroni and API units, which run the scripts the tests run", async () => {
	const units = readdirSync(join(CLUSTER, "systemd"));
	expect(units).toEqual(["testfax-etcd.service", "testfax-patroni.service"]);
	const files = [
		...units.map((unit) => join(CLUSTER, "systemd", unit)),
		join(ROOT, "deploy/runtime/testfax-api.service"),
	];
	for (const file of files) {
		const text = readFileSync(file, "utf8");
		writeFileSync(join(dir, basename(file)), text.replaceAll("/opt/testfax-api", ROOT));
	}
	const verified = await run([
		"systemd-analyze",
		"verify",
		...files.map((file) => join(dir, basename(file))),
	]);
	expect([verified.code, verified.stdout, verified.stderr]).toEqual([0, "", ""]);
});

test("Patroni's unit stops Patroni alone, then kills whatever of it is left", () => {
	const unit = readFileSync(join(CLUSTER, "systemd/testfax-patroni.service"), "utf8");
	expect(unit.match(/^(KillMode|Restart|TimeoutStopSec)=.*$/gm)).toEqual([
		"KillMode=mixed",
		"TimeoutStopSec=60",
		"Restart=on-failure",
	]);
});

test("the route to the primary and the public front make one HAProxy file that HAProxy accepts", async () => {
	const primary = await run(["bash", join(CLUSTER, "haproxy-config.sh")], {
		PRIMARY_PORT: "5000",
		NODES: "node1:10.0.0.1:5432:8008 node2:10.0.0.2:5432:8008 node3:10.0.0.3:5432:8008",
	});
	const front = await run(["bash", join(CLUSTER, "front-haproxy-config.sh")], {
		LISTEN_HOST: "0.0.0.0",
		PUBLIC_PORT: "8080",
		INSTANCES: "api1:10.0.0.1:3000:3001 api2:10.0.0.2:3000:3001 api3:10.0.0.3:3000:3001",
	});
	const file = join(dir, "haproxy.cfg");
	writeFileSync(file, primary.stdout + front.stdout);
	const checked = await run(["haproxy", "-c", "-f", file]);
	expect([checked.code, checked.stdout.trim()]).toEqual([0, "Configuration file is valid"]);
	// One maxconn, the route to the primary's: none in a global section, which would bound the front too.
	const sections = (primary.stdout + front.stdout).split(/^(?=\S)/m);
	const limits = sections.flatMap((section) =>
		[...section.matchAll(/^\s+maxconn\s+(\d+)/gm)].map((match) => [section.split("\n")[0], match[1]]),
	);
	expect(limits).toEqual([["listen primary", "1000"]]);
});

test("Debian's 15 main cluster is retired once, and a second run changes nothing", async () => {
	const confRoot = join(dir, "postgresql");
	const env = { PG_CLUSTER_CONF_ROOT: confRoot };
	const script = join(CLUSTER, "retire-debian-cluster.sh");
	const none = await run([script], env);
	expect([none.code, none.stdout]).toEqual([
		0,
		`no cluster 15 main (${confRoot}/15/main/start.conf missing): nothing to retire\n`,
	]);
	mkdirSync(join(confRoot, "15/main"), { recursive: true });
	writeFileSync(join(confRoot, "15/main/start.conf"), "# Automatic startup\nauto\n");
	const retired =
		"# Retired by testfax-api's deploy/cluster/retire-debian-cluster.sh: Patroni runs this node's PostgreSQL.\ndisabled\n";
	for (let i = 0; i < 2; i++) {
		const done = await run([script], env);
		expect([done.code, done.stdout, done.stderr]).toEqual([
			0,
			"cluster 15 main: stopped, start.conf disabled\n",
			"",
		]);
		expect(readFileSync(join(confRoot, "15/main/start.conf"), "utf8")).toBe(retired);
	}
});

// Three hosts on one machine for the cluster tests (testkit/cluster.ts):
// three network namespaces, each with one end of a veth pair whose other end
// is on a bridge in the root namespace. The root namespace is a fourth host
// on the bridge (its address, `gateway`, is where the front proxy and Redis
// are reached from the nodes). Needs root, `ip` (iproute2) and `iptables`.
//
// Every name carries the pid of the run that made it (tfc<pid>...), so a
// second run on the machine takes names of its own, and a run that was killed
// before it could clean up is cleaned up by the next one (removeStale).
import { readFileSync } from "node:fs";
import { requireTool } from "./processes.ts";

export interface Host {
	/** node1, node2, node3. */
	name: string;
	/** The network namespace (ip netns). */
	ns: string;
	/** Its address on the bridge. */
	address: string;
	/** The prefix that runs a command inside it: `ip netns exec <ns>`. */
	exec: string[];
	/** Its veth pair's end on the bridge. */
	veth: string;
}

export interface Network {
	bridge: string;
	/** The root namespace's address on the bridge. */
	gateway: string;
	/** The bridge's network, a.b.c.0/24. */
	subnet: string;
	hosts: Host[];
	/** Cuts `host` off: inside its namespace, every packet not on loopback is dropped, both ways. */
	cut(host: Host): void;
	/** Undoes cut(). */
	heal(host: Host): void;
	/** Deletes the namespaces, the bridge and the FORWARD rule; every step runs even past a failing one. */
	remove(): void;
}

const PREFIX = "tfc";
// The second octet of every bridge network; the third is chosen per run.
const NET = "10.77";

function ip(...args: string[]): string {
	const result = Bun.spawnSync(["ip", ...args], { stdout: "pipe", stderr: "pipe" });
	if (result.exitCode !== 0) throw new Error(`ip ${args.join(" ")}: ${result.stderr.toString().trim()}`);
	return result.stdout.toString();
}

function iptables(exec: string[], ...args: string[]): void {
	const result = Bun.spawnSync([...exec, "iptables", "-w", ...args], { stdout: "pipe", stderr: "pipe" });
	if (result.exitCode !== 0)
		throw new Error(`${[...exec, "iptables", ...args].join(" ")}: ${result.stderr.toString().trim()}`);
}

/** Whether the run of `pid` is still alive: a process of that id that is a Bun (pids are reused). */
function runAlive(pid: number): boolean {
	try {
		return readFileSync(`/proc/${pid}/comm`, "utf8").trim().startsWith("bun");
	} catch {
		return false;
	}
}

const stalePid = (name: string, pattern: RegExp): boolean => {
	const pid = pattern.exec(name)?.[1];
	return pid !== undefined && Number(pid) !== process.pid && !runAlive(Number(pid));
};

/**
 * Deletes what a run that is no longer alive left: its namespaces, its veth
 * pairs, its bridge and its FORWARD rule. Processes of that run still
 * inside a namespace keep it alive unnamed until they end (their
 * parent-death signal ends most of them with the run).
 */
export function removeStale(): void {
	for (const line of ip("netns", "list").split("\n")) {
		const ns = line.split(" ")[0] ?? "";
		if (stalePid(ns, /^tfc(\d+)-\d$/)) Bun.spawnSync(["ip", "netns", "del", ns]);
	}
	const links = JSON.parse(ip("-j", "link", "show")) as { ifname: string }[];
	for (const { ifname } of links) {
		if (stalePid(ifname, /^tfc(\d+)(v\d)?$/)) Bun.spawnSync(["ip", "link", "del", ifname]);
	}
	const rules = Bun.spawnSync(["iptables", "-w", "-S", "FORWARD"], { stdout: "pipe" }).stdout.toString();
	for (const rule of rules.split("\n")) {
		if (stalePid(rule, /--comment "?tfc(\d+)"?/)) {
			Bun.spawnSync(["iptables", "-w", ...rule.replace(/^-A /, "-D ").split(" ").map(unquote)]);
		}
	}
}

const unquote = (word: string) => word.replace(/^"(.*)"$/, "$1");

/** A /24 under 10.77 that no interface or route of this machine uses, from the run's pid on. */
function freeSubnet(): string {
	const used = ip("-4", "-o", "addr") + ip("-4", "route");
	for (let i = 0; i < 250; i++) {
		const third = ((process.pid + i) % 250) + 2;
		if (!used.includes(`${NET}.${third}.`)) return `${NET}.${third}`;
	}
	throw new Error(`no free /24 under ${NET}.0.0/16 on this machine`);
}

/** The host's namespace with its address/24 on eth0, the other end of its veth on `bridge`. */
function addHost(bridge: string, { ns, veth, address }: Host): void {
	ip("netns", "add", ns);
	ip("link", "add", veth, "type", "veth", "peer", "name", `${veth}p`);
	ip("link", "set", `${veth}p`, "netns", ns);
	ip("link", "set", veth, "master", bridge, "up");
	ip("-n", ns, "link", "set", `${veth}p`, "name", "eth0");
	ip("-n", ns, "addr", "add", `${address}/24`, "dev", "eth0");
	ip("-n", ns, "link", "set", "eth0", "up");
	ip("-n", ns, "link", "set", "lo", "up");
}

// Dropping in the host's own namespace leaves loopback, and with it a
// node's own addresses (routed over lo), alone: the node's API instance
// still reaches its PostgreSQL, as on a host whose network cable is pulled.
const CUT_RULES = [
	["INPUT", "!", "-i", "lo", "-j", "DROP"],
	["OUTPUT", "!", "-o", "lo", "-j", "DROP"],
];

/**
 * A bridge `tfc<pid>` in the root namespace with three namespaces on it,
 * node1..node3 at .11, .12, .13 of a free 10.77.x.0/24 (the root namespace
 * at .1). Whatever it made before a failure is removed again.
 */
export function makeNetwork(): Network {
	for (const tool of ["ip", "iptables"]) requireTool(tool);
	removeStale();
	const bridge = `${PREFIX}${process.pid}`;
	const base = freeSubnet();
	const hosts = [1, 2, 3].map((i) => {
		const ns = `${bridge}-${i}`;
		const exec = ["ip", "netns", "exec", ns];
		return { name: `node${i}`, ns, address: `${base}.${10 + i}`, exec, veth: `${bridge}v${i}` };
	});
	// Bridged frames pass the root namespace's FORWARD chain where
	// br_netfilter is loaded (bridge-nf-call-iptables=1 on CI's machines);
	// a DROP policy there (Docker sets one) would part the nodes.
	const forward = [
		"FORWARD",
		"-i",
		bridge,
		"-o",
		bridge,
		"-j",
		"ACCEPT",
		"-m",
		"comment",
		"--comment",
		bridge,
	];
	const network: Network = {
		bridge,
		gateway: `${base}.1`,
		subnet: `${base}.0/24`,
		hosts,
		cut: (host) => {
			for (const rule of CUT_RULES) iptables(host.exec, "-I", ...rule);
		},
		heal: (host) => {
			for (const rule of CUT_RULES) iptables(host.exec, "-D", ...rule);
		},
		remove: () => removeNetwork(bridge, hosts, forward),
	};
	try {
		ip("link", "add", bridge, "type", "bridge");
		ip("addr", "add", `${network.gateway}/24`, "dev", bridge);
		ip("link", "set", bridge, "up");
		iptables([], "-I", ...forward);
		for (const host of hosts) addHost(bridge, host);
	} catch (error) {
		network.remove();
		throw error;
	}
	return network;
}

function removeNetwork(bridge: string, hosts: Host[], forward: string[]): void {
	const failed: string[] = [];
	const attempt = (command: string[]) => {
		const result = Bun.spawnSync(command, { stdout: "ignore", stderr: "pipe" });
		const message = result.stderr.toString().trim();
		// Removing what a failed start never made is no failure.
		if (result.exitCode !== 0 && !/No such|Cannot find|does not exist|Bad rule/.test(message))
			failed.push(`${command.join(" ")}: ${message}`);
	};
	// Deleting a veth end deletes its peer at once; deleting the namespace
	// would too, but the kernel tears a namespace down later, in the background.
	for (const host of hosts) attempt(["ip", "link", "del", host.veth]);
	for (const host of hosts) attempt(["ip", "netns", "del", host.ns]);
	attempt(["ip", "link", "del", bridge]);
	attempt(["iptables", "-w", "-D", ...forward]);
	if (failed.length > 0) throw new Error(`removing the test network failed: ${failed.join("; ")}`);
}

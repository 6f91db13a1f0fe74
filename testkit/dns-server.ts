import { createSocket, type Socket } from "node:dgram";
import { promises as dns } from "node:dns";
import { realClockEnv } from "./child-env.ts";
import { freePort } from "./ports.ts";
import { dieWithParent } from "./redis-server.ts";

/**
 * A real DNS server on loopback for the mail authentication tests: dnsmasq
 * (Debian's `dnsmasq-base`, no service of its own) answering one test zone
 * from TXT records, and a UDP socket that reads every query and answers none,
 * the server of the names that must time out.
 */
export interface DnsServer {
	/** `127.0.0.1:PORT` of dnsmasq, as DNS_SERVERS names a server. */
	address: string;
	/** `127.0.0.1:PORT` of a server that never answers anything. */
	silentAddress: string;
	/** Queries the silent server has read, dnsmasq's forwards to it included. */
	silentQueries(): number;
	stop(): Promise<void>;
}

export interface DnsZone {
	/** The zone answered here alone: a name under it without a record is NXDOMAIN. */
	zone: string;
	/** TXT records, name and text; a name given several times has several records. */
	txt: [name: string, text: string][];
	/** Names (and the names below them) whose queries dnsmasq passes to the silent server. */
	silent?: string[];
	/** More zones answered here alone, from no record: every name under them is NXDOMAIN. */
	empty?: string[];
}

const START_TIMEOUT_MS = 5000;

/** The name of the user (`-un`) or group (`-gn`) the tests run as: dnsmasq takes names. */
function idOf(flag: "-un" | "-gn"): string {
	return Bun.spawnSync(["id", flag]).stdout.toString().trim();
}

/**
 * A TXT record as dnsmasq's command line takes it. dnsmasq itself cuts a text
 * over 255 characters into strings of 255 (a 2048-bit DKIM key is two), and
 * reads a comma as the start of another string.
 */
function txtRecord(name: string, text: string): string {
	if (text.includes(",")) throw new Error(`a test TXT record cannot hold a comma: ${text}`);
	return `--txt-record=${name},${text}`;
}

function dnsmasqBinary(): string {
	// dnsmasq lives in /usr/sbin, which a non-root PATH may lack.
	const binary = Bun.which("dnsmasq", { PATH: `${process.env.PATH ?? ""}:/usr/sbin:/sbin` });
	if (binary === null) {
		throw new Error(
			"dnsmasq is not installed: apt-get install dnsmasq-base (docs/development.md lists every tool; bash .ci/run installs them)",
		);
	}
	return binary;
}

async function silentServer(): Promise<{ socket: Socket; port: number; count: () => number }> {
	const socket = createSocket("udp4");
	let queries = 0;
	socket.on("message", () => {
		queries += 1;
	});
	await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
	return { socket, port: socket.address().port, count: () => queries };
}

/** True once dnsmasq answers a query for the zone (NXDOMAIN is an answer). */
async function answers(address: string, zone: string): Promise<boolean> {
	const resolver = new dns.Resolver({ timeout: 200, tries: 1 });
	resolver.setServers([address]);
	// Bun rounds a Resolver's timeout up to whole seconds: the race keeps each try short.
	const timer = Bun.sleep(200).then(() => "timeout");
	const answer = resolver.resolveTxt(`ready.${zone}`).then(
		() => "answer",
		(error: NodeJS.ErrnoException) =>
			error.code === "ENOTFOUND" || error.code === "ENODATA" ? "answer" : "error",
	);
	const outcome = await Promise.race([answer, timer]);
	resolver.cancel();
	return outcome === "answer";
}

/** Starts dnsmasq on a free loopback port serving `zone`, and the silent server beside it. */
export async function startDnsServer(zone: DnsZone): Promise<DnsServer> {
	const silent = await silentServer();
	const port = await freePort();
	const child = Bun.spawn(
		[
			...dieWithParent,
			dnsmasqBinary(),
			"--keep-in-foreground",
			// As the user the tests run as: dnsmasq otherwise changes to "nobody", and the kernel
			// clears the parent-death signal of a process whose user changes, so a test process
			// that died left its dnsmasq running.
			`--user=${idOf("-un")}`,
			`--group=${idOf("-gn")}`,
			// No /etc/dnsmasq.conf, no pid file in /run: a throwaway server beside any other.
			"--conf-file=/dev/null",
			"--pid-file=",
			`--port=${port}`,
			"--listen-address=127.0.0.1",
			"--bind-interfaces",
			"--no-resolv",
			"--no-hosts",
			"--log-facility=-",
			`--local=/${zone.zone}/`,
			...(zone.empty ?? []).map((name) => `--local=/${name}/`),
			...(zone.silent ?? []).map((name) => `--server=/${name}/127.0.0.1#${silent.port}`),
			...zone.txt.map(([name, text]) => txtRecord(name, text)),
		],
		{ env: realClockEnv(), stdin: "ignore", stdout: "ignore", stderr: "pipe" },
	);
	const address = `127.0.0.1:${port}`;
	const stop = async () => {
		child.kill("SIGTERM");
		await child.exited;
		silent.socket.close();
	};
	const deadline = Date.now() + START_TIMEOUT_MS;
	while (!(await answers(address, zone.zone))) {
		if (child.exitCode !== null || Date.now() > deadline) {
			await stop();
			throw new Error(`dnsmasq did not answer on ${address}:\n${await new Response(child.stderr).text()}`);
		}
	}
	return { address, silentAddress: `127.0.0.1:${silent.port}`, silentQueries: silent.count, stop };
}

let empty: Promise<DnsServer> | undefined;

/**
 * One DNS server per test process that knows no record of the names test
 * messages use (example.com, .org, .net, .test): what `fax receive-mail`
 * asks when a test is not about authentication, so its checks read "none"
 * at once on any machine, never whatever the host's resolver says.
 */
export function emptyDnsServer(): Promise<DnsServer> {
	empty ??= startDnsServer({
		zone: "test",
		txt: [],
		empty: ["example.com", "example.org", "example.net", "example"],
	});
	return empty;
}

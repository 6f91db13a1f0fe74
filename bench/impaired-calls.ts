// `npm run calls:impaired`: real fax calls between the receivers host's two
// iaxmodems (deploy/receivers/install.sh, as test:receivers makes it) over a
// line that loses packets: iptables drops a random share of the IAX2 traffic
// between them (UDP to 127.0.0.1:4570 and :4571 only, a chain of this
// script's own, removed afterwards), with ECM on and off. Each call's
// HylaFAX reason, what its session log shows (partial page requests, bad
// lines) and the verdict its page gives are printed as one table row.
// `--keep DIR` keeps each call's session logs, received file, faxinfo and
// xferfaxlog records (the source of fixtures/hylafax/). Needs root; several
// minutes a call; not in CI. `--only NAME` (repeatable) runs those cases.
// Some cases change the line at a point of the call instead: on cue from the
// receiver's session log they drop packets one way or both, or stop the
// sending iaxmodem (a caller that vanishes) or the whole receivers host, and
// start them again after the call.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
	killSenderWhen,
	LOG_DIR,
	newLog,
	sendFaxWith,
	sessionLog,
	sessionLogNames,
} from "../testkit/hylafax-calls.ts";
import {
	INSTALL,
	installReceivers,
	LISTED,
	loopbackApi,
	RECVQ,
	ROOT,
	SPOOL,
	sh,
	until,
} from "../testkit/receivers.ts";

/**
 * A change of the line once the receiver's session log matches `when` (and
 * `afterMs` more have passed): `loss` of the packets dropped from then on, to
 * `port` only when given (4570 the receiving iaxmodem, 4571 the sending one),
 * or, with `vanish`, the sending iaxmodem stopped: the caller gone mid-call;
 * with `stop`, the receivers host stopped (install.sh --stop) under the call.
 */
type Step = { when?: RegExp; afterMs?: number; loss?: number; port?: string; vanish?: true; stop?: true };

/**
 * `cut`: the sender's faxsend killed once its log matches (the line stays up, silent).
 * `steps`: changes of the line on cue, in order. `document`: under fixtures/ingest/.
 */
type Case = {
	name: string;
	loss: number;
	options: string[];
	cut?: RegExp;
	steps?: Step[];
	document?: string;
};

/** Page 2 of the fine-mode fax (3 pages of 2,200 lines, 21 ECM frames each here) half-way through. */
const FINE_PAGE2 = /page 1 in [\s\S]*RECV received frame number 10\n/;

const CASES: Case[] = [
	{ name: "ecm-loss1", loss: 0.01, options: [] },
	{ name: "ecm-loss2", loss: 0.02, options: [] },
	{ name: "ecm-loss3", loss: 0.03, options: [] },
	{ name: "ecm-loss6", loss: 0.06, options: [] },
	{ name: "noecm-loss1", loss: 0.01, options: ["-E"] },
	{ name: "noecm-loss3", loss: 0.03, options: ["-E"] },
	{ name: "ecm-loss8", loss: 0.08, options: [] },
	// The sender gone as page 2 begins: its modem keeps the carrier, HylaFAX waits on its own timers.
	{ name: "cut-page2", loss: 0, options: [], cut: /SEND recv MCF[\s\S]*AT\+FTM=146/ },
	// The sending iaxmodem stopped mid-page 2 (ECM): the receiver waits on its own timers, about 6 minutes.
	{
		name: "vanish-silent",
		loss: 0,
		options: [],
		document: "fax-g3-2d-fine.tif",
		steps: [{ when: FINE_PAGE2, vanish: true }],
	},
	// The same, and the receivers host stopped 10 s later: its modem gone under it, no session end.
	{
		name: "vanish-page2",
		loss: 0,
		options: [],
		document: "fax-g3-2d-fine.tif",
		steps: [
			{ when: FINE_PAGE2, vanish: true },
			{ afterMs: 10_000, stop: true },
		],
	},
	// Both ways silent mid-page 1, then the sender deaf: its block's PPSs go unanswered, it sends DCN.
	{
		name: "partial-page1-ecm",
		loss: 0,
		options: [],
		document: "fax-g3-2d-fine.tif",
		steps: [
			{ when: /RECV received frame number 10\n/, loss: 1 },
			{ afterMs: 2_000, loss: 1, port: "4571" },
		],
	},
	// Loss toward the receiver from the first DCS on (ECM): failed trainings make the sender fall back
	// in speed, then damaged frames bring partial page requests; the receiver's answers get through.
	{
		name: "fallback-ppr",
		loss: 0,
		options: [],
		steps: [{ when: /RECV recv DCS/, loss: 0.04, port: "4570" }],
	},
	{
		name: "fallback-ppr5",
		loss: 0,
		options: [],
		steps: [{ when: /RECV recv DCS/, loss: 0.05, port: "4570" }],
	},
	// The receiver's last MCF sent, the sender's DCN reaches it damaged.
	{
		name: "damaged-dcn",
		loss: 0,
		options: [],
		steps: [{ when: /RECV recv EOP[\s\S]*RECV send MCF/, loss: 0.12, port: "4570" }],
	},
	// 4 % lost both ways all along: often the caller's answers to our DIS come damaged, we ask
	// again (CRP), and it hangs up (EOT) before any DCS; random, about one call in two here.
	{ name: "phaseb-eot", loss: 0.04, options: [] },
];

const CHAIN = "TESTFAX_IMPAIR";
const PORTS = "4570,4571";

/** Drops `loss` of the IAX2 packets to either iaxmodem (to `port` alone when given); `undefined` takes the rules away. */
function impair(loss: number | undefined, port?: string): void {
	Bun.spawnSync([
		"iptables",
		"-D",
		"INPUT",
		"-i",
		"lo",
		"-p",
		"udp",
		"-m",
		"multiport",
		"--dports",
		PORTS,
		"-j",
		CHAIN,
	]);
	Bun.spawnSync(["iptables", "-F", CHAIN]);
	Bun.spawnSync(["iptables", "-X", CHAIN]);
	if (loss === undefined) return;
	sh(["iptables", "-N", CHAIN]);
	sh([
		"iptables",
		"-A",
		CHAIN,
		...(port ? ["-p", "udp", "--dport", port] : []),
		"-m",
		"statistic",
		"--mode",
		"random",
		"--probability",
		String(loss),
		"-j",
		"DROP",
	]);
	sh(["iptables", "-I", "INPUT", "-i", "lo", "-p", "udp", "-m", "multiport", "--dports", PORTS, "-j", CHAIN]);
}

type Row = {
	call: Case;
	reason: string;
	log: string;
	pages: string;
	pprs: number;
	badLines: string;
	verdict: string;
};

/** The reason of the call's xferfaxlog CALL record, and its records. */
function xferfaxlog(commid: string): { reason: string; records: string[] } {
	const records = readFileSync(join(LOG_DIR, "xferfaxlog"), "latin1")
		.split("\n")
		.filter((line) => line.split("\t")[2] === commid);
	const call = records.find((line) => line.split("\t")[1] === "CALL")?.split("\t");
	return { reason: (call?.[13] ?? "").replace(/^"|"$/g, ""), records };
}

/** The verdict's rule and title on the fax's page. */
async function verdictOf(api: string, slug: string): Promise<string> {
	const html = await (await fetch(`${api}/faxtest/${slug}`)).text();
	const rule = /data-rule="([^"]+)"/.exec(html)?.[1] ?? "";
	const title = /<section id="verdict"[^>]*>\n<h2[^>]*>[^<]*<\/h2>\n<p>([^<]*)<\/p>/.exec(html)?.[1] ?? "";
	return `${rule}: ${title.replaceAll("&ldquo;", "“").replaceAll("&rdquo;", "”").replaceAll("&#39;", "'")}`;
}

async function phoneSlugs(api: string): Promise<Set<string>> {
	const since = new Date(Date.now() - 3_600_000).toISOString();
	const faxes = (await (await fetch(`${api}/api/faxes?limit=100&since=${since}`)).json()) as {
		slug: string;
		source: string;
	}[];
	return new Set(faxes.filter((fax) => fax.source === "phone").map((fax) => fax.slug));
}

/** The received files (recvq/faxNNNNNNNNN.tif, listed or not) there are now. */
function receivedFiles(): Set<string> {
	const names = (dir: string) =>
		(existsSync(dir) ? readdirSync(dir) : []).filter((n) => /^fax\d+\.tif$/.test(n));
	return new Set([...names(RECVQ).map((n) => join(RECVQ, n)), ...names(LISTED).map((n) => join(LISTED, n))]);
}

/** The sending iaxmodem's process id, found before the call so that `vanish` is one system call. */
const sendingModem = () => Number(sh(["pgrep", "-n", "-f", "^iaxmodem ttyIAX1$"]).trim());

/** Whether the call has ended; when the steps stopped the host under it. */
type CallState = { done: boolean; stoppedAt?: number };

/** Plays `steps` on cue from the receiver's session log, until the call has `ended`. */
async function onCue(before: Set<string>, steps: Step[], ended: CallState): Promise<void> {
	if (steps.length === 0) return;
	const modem = sendingModem();
	const found = await until(
		() => newLog(before, /: RECV FAX: begin/) ?? (ended.done || undefined),
		600_000,
		20,
	);
	if (typeof found !== "string") return;
	for (const step of steps) {
		const when = step.when;
		if (when) await until(() => ended.done || when.test(sessionLog(found)) || undefined, 600_000, 5);
		if (ended.done) return;
		if (step.afterMs) await Bun.sleep(step.afterMs);
		// SIGTERM, as install.sh --stop ends it: no IAX2 hang-up reaches the receiving modem, which hears nothing more.
		if (step.vanish) process.kill(modem, "SIGTERM");
		if (step.stop) {
			sh([INSTALL, "--stop"]);
			ended.stoppedAt = Date.now();
		}
		if (step.loss !== undefined) impair(step.loss, step.port);
	}
}

/**
 * Places the call, plays its cuts and steps, and returns the receiver's
 * session log once it ended: `SESSION END`, or the modem closed under it
 * (a caller that vanished leaves no session end).
 */
async function placeCall(call: Case, logs: Set<string>): Promise<string> {
	const ended: CallState = { done: false };
	const cues = onCue(logs, call.steps ?? [], ended);
	// A host stopped under the call may leave no last line: its log as it is 5 s later.
	const stopped = () => ended.stoppedAt !== undefined && Date.now() - ended.stoppedAt > 5_000;
	try {
		sendFaxWith(join(ROOT, "fixtures/ingest", call.document ?? "fax-g3-2d.tif"), call.options);
		if (call.cut) await killSenderWhen(logs, call.cut);
		const name = await until(() => newLog(logs, /: RECV FAX: begin/), 600_000, 100);
		await until(
			() => /: SESSION END|: CLOSE \/dev\/ttyIAX0/.test(sessionLog(name)) || stopped() || undefined,
			600_000,
			20,
		);
		return name;
	} finally {
		ended.done = true;
		await cues.catch(() => undefined);
	}
}

/** After a case that stopped an iaxmodem or the host: install.sh starts what is not running, both lines idle again. */
async function restoreModems(call: Case): Promise<void> {
	if (!call.steps?.some((step) => step.vanish || step.stop)) return;
	sh([INSTALL, "--start"]);
	await until(
		() => (sh(["faxstat", "-s"]).match(/Running and idle/g)?.length === 2 ? true : undefined),
		120_000,
		500,
	);
}

async function runCase(api: string, call: Case, keep: string | undefined): Promise<Row> {
	const before = await phoneSlugs(api);
	const logs = sessionLogNames();
	const files = receivedFiles();
	if (call.loss > 0) impair(call.loss);
	try {
		const name = await placeCall(call, logs);
		impair(undefined);
		await restoreModems(call);
		const log = readFileSync(join(LOG_DIR, name), "latin1");
		const { reason, records } = xferfaxlog(name.slice(1));
		const slug = await until(
			async () => [...(await phoneSlugs(api))].find((s) => !before.has(s)),
			call.steps?.some((step) => step.vanish || step.stop) ? 90_000 : 15_000,
			200,
		).catch(() => undefined);
		if (keep) await keepCall(join(keep, call.name), log, records, newLog(logs, /SEND FAX: JOB/), files);
		return {
			call,
			reason,
			log: name,
			pages:
				/RECV FAX \(\d+\): .* (\d+) pages in ([\d:]+)/.exec(log)?.slice(1).join(" pages in ") ?? "no file",
			pprs: log.match(/RECV send PPR/g)?.length ?? 0,
			badLines: [...log.matchAll(/RECV: (\d+) total lines, (\d+) bad lines, (\d+) consecutive/g)]
				.map((m) => `${m[2]}/${m[1]} (${m[3]} in a row)`)
				.join(", "),
			verdict: slug ? await verdictOf(api, slug) : "not listed",
		};
	} finally {
		impair(undefined);
		await restoreModems(call);
	}
}

/** The file the call left: the one its log names, or else the one new in the receive queue (a session cut short names none). */
async function receivedFile(log: string, before: Set<string>): Promise<string | undefined> {
	const file = /RECV FAX \(\d+\): (recvq\/fax\d+\.tif) from/.exec(log)?.[1];
	if (file === undefined) return [...receivedFiles()].find((path) => !before.has(path));
	// Listed, faxrcvd moves it to recvq/listed/ a moment later; not listed, it stays.
	const listed = join(LISTED, file.slice("recvq/".length));
	return await until(() => (existsSync(listed) ? listed : undefined), 10_000, 100).catch(() =>
		join(SPOOL, file),
	);
}

/** The call's session logs, received file, its faxinfo and its xferfaxlog records, into `dir`. */
async function keepCall(
	dir: string,
	log: string,
	records: string[],
	sender: string | undefined,
	filesBefore: Set<string>,
): Promise<void> {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "receiver.log"), log, "latin1");
	if (sender) copyFileSync(join(LOG_DIR, sender), join(dir, "sender.log"));
	writeFileSync(join(dir, "xferfaxlog"), `${records.join("\n")}\n`, "latin1");
	const received = await receivedFile(log, filesBefore);
	if (received && existsSync(received)) {
		copyFileSync(received, join(dir, "received.tif"));
		writeFileSync(join(dir, "faxinfo.txt"), sh(["/usr/lib/hylafax/bin/faxinfo", received]));
	}
}

const { values } = parseArgs({
	options: { keep: { type: "string" }, only: { type: "string", multiple: true } },
});
const { api, settings } = await loopbackApi();
const host = await installReceivers(settings, 64 * 1024 * 1024);
try {
	console.log(
		"| call | loss | HylaFAX's reason | file | PPRs | bad lines | page's verdict |\n| - | - | - | - | - | - | - |",
	);
	for (const call of CASES.filter((entry) => values.only === undefined || values.only.includes(entry.name))) {
		const row = await runCase(api, call, values.keep);
		console.log(
			`| ${call.name} (${row.log}) | ${call.loss * 100} % | ${row.reason || "(clean)"} | ${row.pages} | ${row.pprs} | ${row.badLines || "-"} | ${row.verdict} |`,
		);
	}
} finally {
	impair(undefined);
	host.undo();
}

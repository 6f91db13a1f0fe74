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
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
	killSenderWhen,
	LOG_DIR,
	newLog,
	receiverLog,
	sendFaxWith,
	sessionLogNames,
} from "../testkit/hylafax-calls.ts";
import { installReceivers, LISTED, loopbackApi, ROOT, SPOOL, sh, until } from "../testkit/receivers.ts";

/** `cut`: the sender's faxsend killed once its log matches (the line stays up, silent). */
type Case = { name: string; loss: number; options: string[]; cut?: RegExp };

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
];

const CHAIN = "TESTFAX_IMPAIR";
const PORTS = "4570,4571";

/** Drops `loss` of the IAX2 packets to either iaxmodem; `undefined` takes the rules away. */
function impair(loss: number | undefined): void {
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

async function runCase(api: string, call: Case, keep: string | undefined): Promise<Row> {
	const before = await phoneSlugs(api);
	const logs = sessionLogNames();
	if (call.loss > 0) impair(call.loss);
	try {
		sendFaxWith(join(ROOT, "fixtures/ingest/fax-g3-2d.tif"), call.options);
		if (call.cut) await killSenderWhen(logs, call.cut);
		const name = await receiverLog(logs, 600_000);
		const log = readFileSync(join(LOG_DIR, name), "latin1");
		const { reason, records } = xferfaxlog(name.slice(1));
		const slug = await until(
			async () => [...(await phoneSlugs(api))].find((s) => !before.has(s)),
			15_000,
			200,
		).catch(() => undefined);
		if (keep) await keepCall(join(keep, call.name), log, records, newLog(logs, /SEND FAX: JOB/));
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
	}
}

/** The call's session logs, received file, its faxinfo and its xferfaxlog records, into `dir`. */
async function keepCall(
	dir: string,
	log: string,
	records: string[],
	sender: string | undefined,
): Promise<void> {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "receiver.log"), log, "latin1");
	if (sender) copyFileSync(join(LOG_DIR, sender), join(dir, "sender.log"));
	writeFileSync(join(dir, "xferfaxlog"), `${records.join("\n")}\n`, "latin1");
	const file = /RECV FAX \(\d+\): (recvq\/fax\d+\.tif) from/.exec(log)?.[1];
	if (file === undefined) return;
	// Listed, faxrcvd moves it to recvq/listed/ a moment later; not listed, it stays.
	const listed = join(LISTED, file.slice("recvq/".length));
	const received = await until(() => (existsSync(listed) ? listed : undefined), 10_000, 100).catch(() =>
		join(SPOOL, file),
	);
	if (existsSync(received)) {
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

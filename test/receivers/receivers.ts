/**
 * `npm run test:receivers`: the receivers host made by
 * deploy/receivers/install.sh, the one command docs/operations/receivers.md names
 * (testkit/receivers.ts), a test email through real Postfix and a test fax
 * through a real HylaFAX call, each listed once, at the time the receiver got
 * it, whatever fails on the way; a call shown on /faxtest while it is
 * received, step by step as HylaFAX logs it; and each user's privileges,
 * checked as that user. Outside the default run: it installs system-wide
 * and needs root.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import {
	copyFileSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { dkimSign } from "mailauth";
import { callKeyOf, parseSessionLog } from "../../lib/report/index.ts";
import { checkoutWithoutSharpBinary } from "../../testkit/broken-pipeline.ts";
import { type DnsServer, startDnsServer } from "../../testkit/dns-server.ts";
import {
	killSenderWhen,
	newLog,
	receiverLog,
	sendFaxWith,
	sessionEndMs,
	sessionLog,
	sessionLogNames,
	xferfaxlogReason,
} from "../../testkit/hylafax-calls.ts";
import {
	ALL_RUNNING,
	APP,
	asUser,
	breakOffMail,
	INSTALL,
	installedFrom,
	installReceivers,
	LISTED,
	logLines,
	loopbackApi,
	mountAt,
	operatorInstall,
	RECVQ,
	type ReceiversHost,
	ROOT,
	retryDeferredMail,
	SETTINGS,
	SPOOL,
	SYSLOG,
	sendFax,
	sendMail,
	setUpStep,
	sh,
	until,
	userCan,
	withoutPids,
	writeSettings,
} from "../../testkit/receivers.ts";
import {
	entryOf,
	firstLine,
	type LogLine,
	pageStarts,
	receiverTimeZone,
	type Sample,
	watchFaxtest,
} from "../../testkit/receivers-live-calls.ts";
import { rfc2822, scanEmailMessage } from "../../testkit/scan-email.ts";
import { expectPageShowsFaxinfo, pageDetails, pageVerdict } from "../../testkit/transmission-report.ts";

setDefaultTimeout(180_000);

interface Fax {
	slug: string;
	source: string;
	from: string | null;
	received_at: string;
	page_count: number | null;
}

const started = Math.floor(Date.now() / 1000) - 60;
let settings: Record<string, string>;
let api = "";
let host: ReceiversHost;
let operator: { undo(): void } | null = null;
let handedBack = false;

const mailLines = (pattern: RegExp) => logLines(host.mailLog, host.logStart.mail, pattern);
const syslogLines = (pattern: RegExp) => logLines(SYSLOG, host.logStart.syslog, pattern);
/** Waits for a syslog line ending with `text`: syslogd writes what logger sent a moment later. */
const syslogLine = (text: string) =>
	until(() => syslogLines(/testfax:/).find((line) => line.endsWith(text)), 5000);
const databasePath = () => join(host.data.dir, "faxes.sqlite");

function useSettings(changes: Record<string, string> = {}): void {
	writeSettings({
		...settings,
		DATABASE_PATH: databasePath(),
		STORAGE_DIR: host.data.storage,
		...changes,
	});
}

beforeAll(async () => {
	const loopback = await loopbackApi();
	api = loopback.api;
	settings = {
		...loopback.settings,
		BUSY_TIMEOUT_MS: "1000",
		// The receivers' queues on /metrics, as deploy/receivers/testfax.env ships them.
		RECEIVER_RECVQ: RECVQ,
		RECEIVER_POSTQUEUE: "/usr/sbin/postqueue",
	};
	// The case the test starts from: receivers installed from another folder, running (an operator's).
	const theirs = await loopbackApi();
	operator = await setUpStep("receivers installed from another folder, running", () =>
		operatorInstall({ ...theirs.settings, RECEIVER_RECVQ: RECVQ }),
	);
	host = await installReceivers(settings, 8 * 1024 * 1024);
	await setUpStep("the API server install.sh started answers", untilServing);
});

/** Waits until the API server install.sh started answers. */
function untilServing(): Promise<true> {
	return until(
		() =>
			fetch(`${api}/api/faxes?limit=1`).then(
				(answer) => answer.ok || undefined,
				() => undefined,
			),
		30_000,
		100,
	);
}

afterAll(() => {
	try {
		if (!handedBack) host?.undo();
	} finally {
		operator?.undo();
	}
});

test("install.sh run right after itself changes nothing", () => {
	console.log(`install.sh, first run here:\n${host.runs[0]}install.sh, second run:\n${host.runs[1]}`);
	expect(host.runs[1]).toBe("install.sh: nothing to change\n");
});

test("install.sh refuses, in one line, to overwrite a file someone changed, and leaves it as they made it", () => {
	const cron = "/etc/cron.d/testfax";
	const installed = readFileSync(cron, "utf8");
	const changed = installed.replace("* * * * * uucp", "*/5 * * * * uucp");
	writeFileSync(cron, changed);
	try {
		const run = Bun.spawnSync([INSTALL, "--no-start"]);
		expect([run.exitCode, run.stdout.toString(), run.stderr.toString()]).toEqual([
			1,
			"",
			`install.sh: ${cron} was changed by someone else: not overwriting it (move it away, or merge it into install.sh's version)\n`,
		]);
		expect(readFileSync(cron, "utf8")).toBe(changed);
	} finally {
		writeFileSync(cron, installed);
	}
	expect(sh([INSTALL, "--no-start"])).toBe("install.sh: nothing to change\n");
});

test("a fax domain in mydestination (debconf's mail name) is taken out of it: a local domain never reaches the transport", () => {
	const before = sh(["postconf", "-h", "mydestination"]).trim();
	sh(["postconf", "-e", `mydestination = ${before}, test.example`]);
	expect(sh([INSTALL, "--no-start"])).toBe(
		"install.sh: Postfix: test.example taken out of mydestination (a local domain never reaches the fax transport)\n" +
			"install.sh: Postfix reloaded\n",
	);
	// The same domains: a list Debian's postinst wrote with an empty item (", ,") comes back without it.
	const domains = (list: string) => list.split(/[\s,]+/).filter((item) => item !== "");
	expect(domains(sh(["postconf", "-h", "mydestination"]))).toEqual(domains(before));
});

async function listed(query = ""): Promise<Fax[]> {
	const answer = await fetch(
		`${api}/api/faxes?limit=100&since=${new Date(started * 1000).toISOString()}${query}`,
	);
	expect(answer.status).toBe(200);
	return (await answer.json()) as Fax[];
}

const bySender = (sender: string) => listed(`&from=${encodeURIComponent(sender)}`);
const phoneFaxes = async () => (await listed()).filter((fax) => fax.source === "phone");

/** The scan-to-email fixture from `sender`, with a Message-ID of its own. */
async function scanEmail(sender: string) {
	const fixture = await Bun.file(join(ROOT, "fixtures/ingest/scan-to-email.eml")).text();
	return fixture
		.replace(/^From: .*$/m, `From: <${sender}>`)
		.replace(/^Message-ID: .*\r?\n/m, `Message-ID: <${crypto.randomUUID()}@mfp.test.example>\r\n`);
}

/** A message carrying one attachment of `bytes` zero bytes, base64 as mail clients send it. */
function emailWithAttachment(sender: string, bytes: number): string {
	const encoded = Buffer.alloc(bytes).toString("base64").replace(/.{76}/g, "$&\r\n");
	return [
		`From: <${sender}>`,
		"To: fax@test.example",
		`Message-ID: <${crypto.randomUUID()}@mfp.test.example>`,
		"MIME-Version: 1.0",
		'Content-Type: multipart/mixed; boundary="b"',
		"",
		"--b",
		'Content-Type: application/pdf; name="scan.pdf"',
		"Content-Transfer-Encoding: base64",
		"",
		encoded,
		"--b--",
		"",
	].join("\r\n");
}

/** Each second from `fromMs` to `toMs`, as the API writes one. */
function secondsBetween(fromMs: number, toMs: number): string[] {
	const seconds: string[] = [];
	for (let second = Math.floor(fromMs / 1000); second <= Math.floor(toMs / 1000); second++) {
		seconds.push(isoSecond(second * 1000));
	}
	return seconds;
}

const isoSecond = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

/** A failure set up, then undone. */
interface Failure {
	name: string;
	/** What the line the operator reads says. */
	reason: RegExp;
	cause(): void;
	/** While the hand-over, a process whose command line holds `handOver`, runs. */
	during?(handOver: string): Promise<void>;
	fix(): void;
}

let holder: Database | undefined;
const bun = join(ROOT, "node_modules/.bin/bun");
const filler = () => join(host.data.storage, "filler");

const failures: Failure[] = [
	{
		name: "bun not found",
		reason: /bun not found at/,
		cause: () => renameSync(bun, `${bun}.away`),
		fix: () => renameSync(`${bun}.away`, bun),
	},
	{
		name: "the settings file missing",
		reason: /the settings file \/etc\/testfax-api\/testfax\.env is missing/,
		cause: () => renameSync(SETTINGS, `${SETTINGS}.away`),
		fix: () => renameSync(`${SETTINGS}.away`, SETTINGS),
	},
	{
		name: "the database busy past its timeout",
		reason: /stayed locked by another writer/,
		cause: holdDatabase,
		fix: releaseDatabase,
	},
	{
		name: "the disk full",
		reason: /no space left on device/i,
		cause: () => void Bun.spawnSync(["dd", "if=/dev/zero", `of=${filler()}`, "bs=64k"]),
		fix: () => rmSync(filler()),
	},
	{
		name: "the hand-over killed",
		reason: /Command output: Killed|ended with status 137/,
		cause() {
			useSettings({ BUSY_TIMEOUT_MS: "60000" });
			holdDatabase();
		},
		async during(handOver) {
			const running = () => Bun.spawnSync(["pgrep", "-f", handOver]).stdout.toString().trim().split("\n");
			// The hand-over of the test before may still be exiting.
			const earlier = new Set(running());
			const pid = await until(
				() => running().find((found) => found !== "" && !earlier.has(found)),
				20_000,
				20,
			);
			// Past the document's processing, waiting for the write lock: its files are written, its row is not.
			await Bun.sleep(1500);
			if (Bun.spawnSync(["kill", "-0", pid ?? ""]).exitCode !== 0) {
				throw new Error(
					`the hand-over ${pid} ended before it was killed: it did not wait for the held database`,
				);
			}
			process.kill(Number(pid), "SIGKILL");
		},
		fix() {
			releaseDatabase();
			useSettings();
		},
	},
];

function holdDatabase(): void {
	holder = new Database(databasePath());
	// A delivery of the test before may still be writing.
	holder.exec("PRAGMA busy_timeout = 10000");
	holder.exec("BEGIN IMMEDIATE");
}

function releaseDatabase(): void {
	holder?.exec("ROLLBACK");
	holder?.close();
}

describe("Postfix", () => {
	test("a scan-to-email over STARTTLS is listed once, at the time Postfix received it; delivered again, it is not listed twice", async () => {
		const message = await scanEmail("first@scan.test.example");
		const { queuedAtMs, transcript } = await sendMail(message);
		expect(transcript).toContain("=== TLS started");
		const faxes = await until(
			async () => {
				const found = await bySender("first@scan.test.example");
				return found.length > 0 ? found : undefined;
			},
			10_000,
			10,
		);
		const latencyMs = Date.now() - queuedAtMs;
		console.log(`Postfix: SMTP transaction end (queued) -> listed in ${latencyMs} ms`);
		// Handed over by the pipe, not by Postfix's retry 5 minutes on; the bound leaves a loaded machine its delays.
		expect(latencyMs).toBeLessThan(30_000);
		expect(faxes).toHaveLength(1);
		expect(faxes[0]).toMatchObject({ source: "email", from: "f***@s***.example", page_count: 2 });
		expect(Date.parse(faxes[0]?.received_at ?? "")).toBeLessThanOrEqual(queuedAtMs);
		expect(Date.parse(faxes[0]?.received_at ?? "")).toBeGreaterThan(queuedAtMs - 5000);
		expect((await fetch(`${api}/cdn/faxes/${faxes[0]?.slug}.pdf`)).status).toBe(200);
		// The transmission report: what our Postfix wrote into its Received header.
		const report = pageDetails(await (await fetch(`${api}/faxtest/${faxes[0]?.slug}`)).text());
		expect(report["Kind of test"]).toBe("Scan-to-email: a PDF attachment");
		// swaks says HELO with this host's name; the chrooted smtpd verifies no name for 127.0.0.1.
		expect(report["Sending mail host"]).toBe(`${hostname()} (the name it gave itself; no verified name)`);
		expect(report["Came over TLS"]).toMatch(/^Yes: TLSv1\.[23], \S+ \(\d+ bits\)$/);

		await sendMail(message, { tls: false });
		await until(() => (mailLines(/status=sent/).length >= 2 ? true : undefined), 10_000);
		expect(await bySender("first@scan.test.example")).toEqual(faxes);
	});

	test("a message carrying a 40 MiB attachment is taken and listed with its sender; one past Postfix's 60 MiB is refused at once, and mail-watch lists it with its reason", async () => {
		await sendMail(emailWithAttachment("large@scan.test.example", 40 * 1024 * 1024));
		const faxes = await until(async () => {
			const found = await bySender("large@scan.test.example");
			return found.length > 0 ? found : undefined;
		}, 30_000);
		expect(faxes.map((fax) => [fax.from, fax.page_count])).toEqual([["l***@s***.example", null]]);
		const refused = Bun.spawnSync(
			[
				...["swaks", "--server", "127.0.0.1:25", "--suppress-data"],
				...["--from", "larger@scan.test.example", "--to", "fax@test.example", "--data", "-"],
			],
			{ stdin: new Blob([emailWithAttachment("larger@scan.test.example", 46 * 1024 * 1024)]) },
		);
		expect(refused.exitCode).not.toBe(0);
		expect(refused.stdout.toString()).toMatch(/^<\*\* +552 5\.3\.4 Error: message file too big$/m);
		const [listed] = await until(async () => {
			const found = await bySender("larger@scan.test.example");
			return found.length > 0 ? found : undefined;
		}, 10_000);
		expect([listed?.source, listed?.from, listed?.page_count]).toEqual(["email", "l***@s***.example", null]);
		const page = await pageOf(listed?.slug ?? "");
		expect(page.rule).toBe("email-not-taken");
		expect(page.html).toContain("but our mail server refused it as larger than 60 MiB, the most it takes");
		expect(pageDetails(page.html)["Kind of test"]).toBe("An email our mail server refused as too large");
		expect(await syslogLine(`(too-large, from l***@s***.example): listed as ${listed?.slug}`)).toBeDefined();
	});

	test("a message to the test address broken off during DATA is listed by mail-watch with the bytes that came; one to another address is not", async () => {
		const lostLines = () => mailLines(/ lost connection after DATA \(\d+ bytes\)/);
		const before = lostLines().length;
		await breakOffMail("cut@scan.test.example", "fax@test.example", 20_000);
		await breakOffMail("other@scan.test.example", "someone@elsewhere.test", 20_000);
		const [listed] = await until(async () => {
			const found = await bySender("cut@scan.test.example");
			return found.length > 0 ? found : undefined;
		}, 10_000);
		const page = await pageOf(listed?.slug ?? "");
		expect(page.rule).toBe("email-not-taken");
		// Postfix counts the bytes of DATA it read: the Subject line, the blank line and the body.
		const lost = await until(
			() => (lostLines().length === before + 2 ? lostLines().slice(before) : undefined),
			5000,
		);
		const counted = lost.map((line) => Number(/\((\d+) bytes\)/.exec(line)?.[1]));
		// What Postfix had read when the connection went: some of the 20,000 bytes, never more than was sent.
		expect(counted[0]).toBeGreaterThan(0);
		expect(counted[0]).toBeLessThanOrEqual(20_000 + "Subject: cut short\r\n\r\n".length);
		expect(page.html).toContain(
			`but the connection ended after ${counted[0]?.toLocaleString("en")} bytes of it, before the message was complete`,
		);
		expect(await bySender("other@scan.test.example")).toEqual([]);
	});

	for (const failure of failures) {
		test(`${failure.name}: the message is deferred with the reason in the mail log, then listed once at its arrival time`, async () => {
			const sender = `${failure.name.replaceAll(" ", "-")}@scan.test.example`;
			const deferredBefore = mailLines(/status=deferred/).length;
			failure.cause();
			let queuedAtMs = 0;
			const sentAtMs = Date.now();
			try {
				const sent = sendMail(await scanEmail(sender));
				await failure.during?.("bin/fax.ts receive-mail");
				({ queuedAtMs } = await sent);
				const deferred = await until(() => {
					const lines = mailLines(/status=deferred/);
					return lines.length > deferredBefore ? lines.at(-1) : undefined;
				}, 20_000);
				expect(deferred).toMatch(failure.reason);
				expect(mailLines(/status=bounced/)).toEqual([]);
				expect(await bySender(sender)).toEqual([]);
				await Bun.sleep(1100);
			} finally {
				failure.fix();
			}
			retryDeferredMail();
			const faxes = await until(async () => {
				const found = await bySender(sender);
				return found.length > 0 ? found : undefined;
			}, 20_000);
			expect(faxes).toHaveLength(1);
			// Postfix's Received header: during the SMTP transaction.
			expect(faxes[0]?.received_at ?? "").toBeOneOf(secondsBetween(sentAtMs, queuedAtMs));
		});
	}
});

describe("a scan-to-email test read as a mail engineer reads it (real Postfix, swaks with STARTTLS, a DNS server on loopback)", () => {
	const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
	const publicKey = keys.publicKey.export({ type: "spki", format: "der" }).toString("base64");
	let dns: DnsServer;
	beforeAll(async () => {
		// swaks connects from 127.0.0.1: the address our Postfix sees, which SPF checks.
		dns = await startDnsServer({
			zone: "test",
			txt: [
				["listed.scan.test", "v=spf1 ip4:127.0.0.1 -all"],
				["_dmarc.listed.scan.test", "v=DMARC1; p=reject"],
				["unlisted.scan.test", "v=spf1 ip4:203.0.113.1 -all"],
				["_dmarc.unlisted.scan.test", "v=DMARC1; p=reject"],
				["signed.scan.test", "v=spf1 ip4:203.0.113.1 -all"],
				["_dmarc.signed.scan.test", "v=DMARC1; p=quarantine"],
				["mfp._domainkey.signed.scan.test", `v=DKIM1; k=rsa; p=${publicKey}`],
			],
		});
		useSettings({ DNS_SERVERS: dns.address });
	});
	afterAll(async () => {
		useSettings();
		await dns?.stop();
	});

	/** The real 2-page scan (A4 300 dpi grey JPEG, Letter 200 dpi G4) from scanner@`domain`, its Date by the device's clock. */
	async function scanMessage(domain: string, deviceClockMs: number): Promise<string> {
		const text = await scanEmailMessage({
			domain,
			date: rfc2822(deviceClockMs),
			messageId: crypto.randomUUID(),
		});
		if (domain !== "signed.scan.test") return text;
		const key = {
			signingDomain: domain,
			selector: "mfp",
			privateKey: keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
		};
		// mailauth's types want the key at the top level; its signer reads signatureData only.
		const { signatures, errors } = await dkimSign(text, { ...key, signatureData: [key] });
		expect(errors).toEqual([]);
		return signatures + text;
	}

	/** Sends it through Postfix as the device would; its page once listed: rows, verdict rule and words, raw HTML. */
	async function sent(domain: string, deviceClockMs = Date.now()) {
		const sender = `scanner@${domain}`;
		const before = (await bySender(sender)).length;
		const { transcript } = await sendMail(await scanMessage(domain, deviceClockMs), { from: sender });
		expect(transcript).toContain("=== TLS started");
		const faxes = await until(async () => {
			const found = await bySender(sender);
			return found.length > before ? found : undefined;
		}, 30_000);
		const html = await (await fetch(`${api}/faxtest/${faxes[0]?.slug}`)).text();
		const { rule, text } = pageVerdict(html);
		return { html, rows: pageDetails(html), rule, verdict: text };
	}

	const SCAN_PAGES = {
		"Page 1 of the scan": "A4 (210 × 297 mm), 300 dpi, greyscale, JPEG, 52 kB",
		"Page 2 of the scan": "US Letter (216 × 279 mm), 200 dpi, black and white, CCITT G4, 873 bytes",
	};

	test("SPF pass under DMARC p=reject: each page as scanned, delivered to the inbox", async () => {
		const { rows, rule, html } = await sent("listed.scan.test");
		expect(rule).toBe("all-good");
		expect(rows).toMatchObject(SCAN_PAGES);
		expect(rows["Real recipients"]).toBe("Gmail or Microsoft 365 would likely deliver it to the inbox.");
		expect(rows.SPF).toBe("pass: your domain's SPF record lists the address your device sent from");
		expect(rows.DMARC).toBe("pass (your domain's policy is reject)");
		expect(rows["The device's clock"]).toBe("Right: within two minutes of our mail server's.");
		for (const secret of ["listed.scan.test", "scanner@"]) expect(html).not.toContain(secret);
		// The client's address (the page's own links name this loopback server, so the rows are asked).
		expect(Object.values(rows).join("\n")).not.toContain("127.0.0.1");
	});

	test("SPF fail under DMARC p=reject, unsigned: real recipients would refuse it, and why", async () => {
		const { rows, rule, verdict, html } = await sent("unlisted.scan.test");
		expect(rule).toBe("email-refused-elsewhere");
		expect(verdict).toContain(
			"The test arrived here, but Gmail or Microsoft 365 would likely refuse it: your domain's DMARC policy is reject, " +
				"the address your device sent from is not in your domain's SPF record, and it is not signed for your domain (DKIM).",
		);
		expect(rows).toMatchObject(SCAN_PAGES);
		expect(rows.SPF).toBe("fail: your domain's SPF record does not list the address your device sent from");
		expect(rows.DKIM).toBe("none: the message is not signed");
		expect(html).not.toContain("unlisted.scan.test");
		expect(Object.values(rows).join("\n")).not.toContain("127.0.0.1");
	});

	test("DKIM-signed for the sender's domain under DMARC p=quarantine: the signature carries it past SPF's fail", async () => {
		const { rows, rule, html } = await sent("signed.scan.test");
		// The rule with the DKIM row, so that a run where the signature did not verify after
		// Postfix (seen once in four runs, not explained yet) says what DKIM found.
		expect([rule, rows.DKIM]).toEqual(["all-good", "signed for your domain, and the signature verifies"]);
		expect(rows).toMatchObject(SCAN_PAGES);
		expect(rows.SPF).toBe("fail: your domain's SPF record does not list the address your device sent from");
		expect(rows.DMARC).toBe("pass (your domain's policy is quarantine)");
		expect(rows["Real recipients"]).toBe("Gmail or Microsoft 365 would likely deliver it to the inbox.");
		expect(html).not.toContain("signed.scan.test");
	});

	test("a device clock 3 hours behind is called a time-zone mistake", async () => {
		const { rows, rule, verdict } = await sent("listed.scan.test", Date.now() - 3 * 3600_000);
		expect(rule).toBe("email-clock");
		const words =
			"The device's clock is 3 hours behind ours: a time zone set wrongly (a local time sent as UTC, or the wrong zone).";
		expect(rows["The device's clock"]).toBe(words);
		expect(verdict).toContain(`The test arrived complete, but its time is wrong. ${words}`);
	});
});

/** The first fax by phone's received file, moved to recvq/listed once listed (issue 34's report reads it). */
let firstTiff = "";

describe("HylaFAX", () => {
	let first: Fax;

	test("a fax by phone is listed once, at its last page's write, and a waiting client prints it after the hang-up (the time printed); handed over again, it lists nothing new", async () => {
		const before = new Set(readdirSync(LISTED));
		const client = waitingClient(new Date().toISOString());
		sendFax(join(ROOT, "fixtures/ingest/fax-g3-2d.tif"));
		const faxes = await until(
			async () => {
				const found = await phoneFaxes();
				return found.length > 0 ? found : undefined;
			},
			150_000,
			10,
		);
		const listedAtMs = Date.now();
		const printed = await client;
		const queueFile = await until(() => readdirSync(LISTED).find((name) => !before.has(name)), 5000);
		firstTiff = join(LISTED, queueFile);
		const lastPageMs = statSync(firstTiff).mtimeMs;
		// faxgetty writes the session log out once faxrcvd has returned.
		const hangUpMs = await until(() => hangUpOf(queueFile), 10_000);
		console.log(
			`HylaFAX: last page written -> hang-up ${Math.round(hangUpMs - lastPageMs)} ms; hang-up -> listed ${Math.round(listedAtMs - hangUpMs)} ms (polled every 10 ms); hang-up -> fax wait printed it ${Math.round(printed.atMs - hangUpMs)} ms`,
		);
		// Handed over by faxrcvd, not left for the sweep; the bound leaves a loaded machine its delays.
		expect(printed.atMs - hangUpMs).toBeLessThan(10_000);
		expect(faxes).toHaveLength(1);
		first = faxes[0] as Fax;
		expect(JSON.parse(printed.line)).toEqual(first);
		expect(first).toMatchObject({ source: "phone", page_count: 2, received_at: isoSecond(lastPageMs) });
		// The transmission report of the real call, field by field as faxinfo and tiffinfo read the file.
		expectPageShowsFaxinfo(await (await fetch(`${api}/faxtest/${first.slug}`)).text(), firstTiff);
		// Its session, from the session log faxrcvd handed over beside the file.
		const page = await pageOf(first.slug);
		logCase("clean call", null, page);
		expect(page.rule).toBe("all-good");
		expect(page.html).toContain("Your machine hung up normally after the last page.</li>");
		expect(page.html).toMatch(/Page 2 came whole in 0:00:0\d; 3 ECM frames, 0 partial page requests \(PPR\)/);
		await syslogLine(`testfax: ${queueFile}: listed as ${first.slug} (2 pages)`);

		const again = requeue(firstTiff, queueFile, { keepTime: true });
		sh(faxgettyRuns(`recvq/${queueFile}`));
		await syslogLine(`testfax: ${queueFile}: already listed as ${first.slug}`);
		expect(readdirSync(RECVQ)).not.toContain(queueFile);
		expect(Math.floor(statSync(again.listed).mtimeMs / 1000)).toBe(Math.floor(lastPageMs / 1000));
		expect(await phoneFaxes()).toEqual([first]);
	});

	test("the hand-over's cost: through sudo, against running its command as testfax directly (logged, not asserted)", () => {
		const name = firstTiff.split("/").at(-1) ?? "";
		const handOver = `${APP}/deploy/receivers/hylafax/hand-over`;
		const ways = {
			sudo: asUser("uucp", ["sh", "-c", `exec sudo -n -u testfax ${handOver} "$0" < "$1"`, name, firstTiff], {
				groups: "clear",
			}),
			direct: [
				"sh",
				"-c",
				`exec ${asUser("testfax", [`${APP}/bin/testfax`, "fax", "receive-hylafax", "$0"]).join(" ")} < "$1"`,
				name,
				firstTiff,
			],
		};
		const times: Record<string, number[]> = { sudo: [], direct: [] };
		for (let round = 0; round < 5; round++) {
			for (const [way, command] of Object.entries(ways)) {
				const start = performance.now();
				expect(sh(command)).toBe(`${name}: already listed as ${first.slug}\n`);
				times[way]?.push(performance.now() - start);
			}
		}
		const median = (values: number[] = []) => values.sort((a, b) => a - b)[2] ?? 0;
		const [sudo, direct] = [median(times.sudo), median(times.direct)];
		console.log(
			`hand-over (already listed, median of 5): through sudo ${Math.round(sudo)} ms, direct ${Math.round(direct)} ms: sudo adds ${Math.round(sudo - direct)} ms (x${(sudo / direct).toFixed(2)})`,
		);
	});

	test("the settings file missing during a call: one line in syslog, and the cron sweep lists the fax once, at its last page's write", async () => {
		const before = new Set(readdirSync(RECVQ));
		const errorsBefore = syslogLines(/daemon\.err testfax:/).length;
		renameSync(SETTINGS, `${SETTINGS}.away`);
		let queueFile = "";
		try {
			sendFax(join(ROOT, "fixtures/ingest/fax-g3-2d.tif"));
			await until(
				() => (syslogLines(/daemon\.err testfax:/).length > errorsBefore ? true : undefined),
				150_000,
				100,
			);
			expect(syslogLines(/daemon\.err testfax:/).at(-1)).toMatch(/settings file .* is missing/);
			queueFile = readdirSync(RECVQ).find((name) => !before.has(name) && name.endsWith(".tif")) ?? "";
			expect(queueFile).toMatch(/^fax\d+\.tif$/);
			expect(await phoneFaxes()).toEqual([first]);
		} finally {
			renameSync(`${SETTINGS}.away`, SETTINGS);
		}
		const lastPageMs = statSync(join(RECVQ, queueFile)).mtimeMs;
		runCronLine();
		const phone = await phoneFaxes();
		expect(phone).toHaveLength(2);
		expect(phone.find((fax) => fax.slug !== first.slug)?.received_at).toBe(isoSecond(lastPageMs));
		runCronLine();
		expect(await phoneFaxes()).toHaveLength(2);
	});

	for (const [index, failure] of failures.entries()) {
		test(`${failure.name}: faxrcvd leaves a line in syslog, and the cron sweep lists the fax once`, async () => {
			const queueFile = `fax9${String(Date.now() + index).slice(-8)}.tif`;
			const { queued } = requeue(firstTiff, queueFile, { keepTime: false });
			const phoneBefore = (await phoneFaxes()).length;
			const errorsBefore = syslogLines(/daemon\.err testfax:/).length;
			failure.cause();
			try {
				const run = Bun.spawn(faxgettyRuns(`recvq/${queueFile}`));
				await failure.during?.(`bin/fax.ts receive-hylafax ${queueFile}`);
				await run.exited;
				// syslogd writes what logger sent a moment later.
				const errors = await until(() => {
					const lines = syslogLines(/daemon\.err testfax:/);
					return lines.length > errorsBefore ? lines : undefined;
				}, 5000);
				// cron's own sweep may have tried it too meanwhile: the same line.
				expect(errors.at(-1)).toMatch(failure.reason);
				expect(await phoneFaxes()).toHaveLength(phoneBefore);
			} finally {
				failure.fix();
			}
			runCronLine();
			runCronLine();
			const phone = await phoneFaxes();
			expect(phone).toHaveLength(phoneBefore + 1);
			expect(phone[0]?.received_at).toBe(isoSecond(queued.mtimeMs));
		});
	}
});

/** A new phone fax, of those not in `before`, polled every 10 ms; the time it was seen. */
async function newPhoneFax(before: Fax[], timeoutMs: number): Promise<{ fax: Fax; atMs: number }> {
	const known = new Set(before.map((fax) => fax.slug));
	const fax = await until(
		async () => (await phoneFaxes()).find((entry) => !known.has(entry.slug)),
		timeoutMs,
		10,
	);
	return { fax, atMs: Date.now() };
}

/** The page of a fax: its verdict's rule and the session log lines it shows. */
async function pageOf(slug: string): Promise<{ html: string; rule: string; log: string[] }> {
	const html = await (await fetch(`${api}/faxtest/${slug}`)).text();
	const rule = /data-rule="([^"]+)"/.exec(html)?.[1] ?? "";
	const pre = /<pre id="session-log">([^<]*)<\/pre>/.exec(html)?.[1] ?? "";
	const log = pre
		.replaceAll("&lt;", "<")
		.replaceAll("&gt;", ">")
		.replaceAll("&quot;", '"')
		.replaceAll("&#39;", "'")
		.replaceAll("&amp;", "&")
		.split("\n");
	return { html, rule, log };
}

/** What the test prints for the report: HylaFAX's reason and the page's verdict. */
function logCase(name: string, reason: string | null, page: { html: string; rule: string }) {
	const title = /<section id="verdict"[^>]*>\n<h2[^>]*>[^<]*<\/h2>\n<p>([^<]*)<\/p>/.exec(page.html)?.[1];
	console.log(`${name}: HylaFAX: ${reason ?? "clean"}; page: ${page.rule}: ${title}`);
}

describe("every call that reached a fax machine is accounted for, once (real calls)", () => {
	const tif = () => join(ROOT, "fixtures/ingest/fax-g3-2d.tif");

	test("the sender gone right after training: FaxRcvdCmd with the reason and no file; listed within seconds of the session's end (faxgetty does not wait for FaxRcvdCmd), not processable, with the TSI, the reason and the timeline", async () => {
		const before = await phoneFaxes();
		const logs = sessionLogNames();
		sendFaxWith(tif());
		await killSenderWhen(logs, /TRAINING succeeded/);
		const listing = newPhoneFax(before, 150_000);
		const name = await receiverLog(logs, 150_000);
		const { fax, atMs } = await listing;
		const endMs = sessionEndMs(name);
		console.log(
			`cut after training: session end -> listed ${Math.round(atMs - endMs)} ms (polled every 10 ms)`,
		);
		// Logged, bounded loosely: the hand-over's start (bun, sudo) on a loaded 2-core machine
		// took 1.2 s (load 11) and 1.8 s (load 16); the aim is 1 s (issue 38).
		expect(atMs - endMs).toBeLessThan(5000);
		expect(fax).toMatchObject({
			from: "IAXmodem",
			page_count: null,
			file_size: null,
			pdf_url: null,
			thumbnail_url: null,
		});
		const reason = xferfaxlogReason(name.slice(1));
		expect(reason).toBe("Failed to properly detect high-speed data carrier.");
		const page = await pageOf(fax.slug);
		logCase("cut after training", reason, page);
		expect(page.rule).toBe("ended-before-first-page");
		expect(page.html).toContain(`<code class="hylafax">HylaFAX: ${reason}</code>`);
		expect(page.log).toEqual(parseSessionLog(sessionLog(name)).lines.slice(0, page.log.length));
		runCronLine();
		expect((await phoneFaxes()).length).toBe(before.length + 1);
	});

	test("the sender gone during training (its TSI came, no DCS): no FaxRcvdCmd at all; call-watch lists it once as HylaFAX ends it, with the reason HylaFAX logged; the sweep adds nothing", async () => {
		const before = await phoneFaxes();
		const logs = sessionLogNames();
		sendFaxWith(tif());
		// Once its TSI is on the line, before its DCS: faxsend logs "SEND training at" before both.
		await killSenderWhen(logs, /<-- HDLC<\d+:FF C0 C2 /);
		const listing = newPhoneFax(before, 150_000);
		const name = await receiverLog(logs, 150_000);
		const { fax, atMs } = await listing;
		const endMs = sessionEndMs(name);
		expect(sessionLog(name)).not.toMatch(/: RECV FAX: .* "recvq\/fax\d+\.tif" /);
		// The yardstick: one more hand-over of the same call (sudo, bun, "already listed"), beside it.
		const handOverMs = handOverCostMs(name);
		console.log(
			`cut during training: session end -> listed ${Math.round(atMs - endMs)} ms; one hand-over alone ${handOverMs} ms`,
		);
		// The watcher's own share is under a second; the hand-over's cost is the machine's load.
		expect(atMs - endMs).toBeLessThan(1000 + handOverMs);
		const reason = xferfaxlogReason(name.slice(1));
		expect(fax).toMatchObject({ from: "IAXmodem", page_count: null });
		const page = await pageOf(fax.slug);
		logCase("cut during training", reason, page);
		expect(page.rule).toBe("handshake-failed");
		expect(page.html).toContain(
			`<code class="hylafax">HylaFAX: ${parseSessionLog(sessionLog(name)).ending.reason}</code>`,
		);
		runCronLine();
		expect((await phoneFaxes()).length).toBe(before.length + 1);
		// The safety net: without its mark (as if call-watch had been down), the sweep hands the call over.
		rmSync(join(LISTED, name));
		runCronLine();
		await syslogLine(`testfax: ${name}: already listed as ${fax.slug}`);
		expect(statSync(join(LISTED, name)).size).toBe(0);
		expect((await phoneFaxes()).length).toBe(before.length + 1);
	});

	test("a caller that never sends a fax signal (silence): not listed, by FaxRcvdCmd or the sweep; one line in syslog", async () => {
		const before = await phoneFaxes();
		const logs = sessionLogNames();
		sendFaxWith(tif());
		await killSenderWhen(logs, /DIAL/);
		const name = await receiverLog(logs, 150_000);
		console.log(`silent caller: HylaFAX: ${xferfaxlogReason(name.slice(1))}; page: none (not listed)`);
		runCronLine();
		await syslogLine(
			`testfax: ${name}: no fax machine answered (no fax signal, a voice call or silence): not listed`,
		);
		runCronLine();
		expect(await phoneFaxes()).toEqual(before);
	});

	test("ECM off at 9,600 bit/s (sendfax -E -B 9600): listed with its pages, the V.29 training and each page's lines on its page, all good: HylaFAX counted no damaged line", async () => {
		const before = await phoneFaxes();
		const logs = sessionLogNames();
		sendFaxWith(tif(), ["-E", "-B", "9600"]);
		const { fax } = await newPhoneFax(before, 150_000);
		const name = await receiverLog(logs, 10_000);
		expect(fax.page_count).toBe(2);
		const page = await pageOf(fax.slug);
		logCase("ECM off, 9600", xferfaxlogReason(name.slice(1)), page);
		expect(page.rule).toBe("ecm-off");
		expect(pageDetails(page.html)["Error correction (ECM)"]).toBe("No");
		expect(pageDetails(page.html)["Signal rate"]).toBe("9,600 bit/s (V.29)");
		expect(page.html).toMatch(/<li><time>[\d:]+<\/time> Training at 9,600 bit\/s \(V\.29\): succeeded/);
		expect(page.html).toMatch(
			/<li><time>[\d:]+<\/time> Page 2 came whole in 0:00:0\d; 400 lines, 0 bad \(0 in a row\); your machine said EOP/,
		);
	});
});

/** A time of this host's clock as the table shows it: HH:MM:SS.mmm, UTC. */
const clockText = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/** Each step of a 3-page call: its line in the session log, the first fetch of /faxtest that showed it, the delay; printed as a table. */
function stepTimings(log: string, zone: string, samples: Sample[], key: string) {
	const pages = pageStarts(log, zone);
	const steps: { step: string; line: LogLine | null; now: RegExp }[] = [
		{ step: "answered", line: firstLine(log, /^ANSWER: FAX CONNECTION/, zone), now: /^Answered: / },
		{ step: "training", line: firstLine(log, /^RECV training at /, zone), now: /^Training at / },
		...[1, 2, 3].map((page) => ({
			step: `page ${page} arriving`,
			line: pages.get(page) ?? null,
			now: new RegExp(`^Page ${page} arriving`),
		})),
	];
	const rows = steps.map(({ step, line, now }) => {
		const seen = samples.find((sample) => now.test(entryOf(sample, key)?.now ?? ""));
		const delayMs = seen === undefined || line === null ? null : seen.atMs - line.ms;
		return { step, line, seen, delayMs };
	});
	console.log(
		`/faxtest while a 3-page call is received (fetched every 100 ms, ${samples.length} fetches; log times in ${zone}, shown in UTC):\n` +
			rows
				.map(
					({ step, line, seen, delayMs }) =>
						`  ${step.padEnd(16)} log ${line === null ? "(none)".padEnd(12) : clockText(line.ms)}  first on the page ${seen === undefined ? "(never)".padEnd(12) : clockText(seen.atMs)}  ${delayMs === null ? "" : `+${delayMs} ms`.padStart(9)}  ${line?.text.slice(0, 40) ?? ""} -> ${entryOf(seen ?? { atMs: 0, calls: [], faxes: [] }, key)?.now ?? ""}`,
				)
				.join("\n"),
	);
	return rows;
}

/** The listed fax takes the call's entry's place on /faxtest: never neither, both in one fetch at most, within 5 s of the DCN. */
function expectFaxTookPlace(
	samples: Sample[],
	shown: Sample[],
	call: { key: string; slug: string; log: string; zone: string },
): void {
	const { key, slug, log, zone } = call;
	// The listed fax takes the entry's place.
	const listedOn = (sample: Sample) => sample.faxes.some((row) => row.slug === slug);
	const from = samples.indexOf(shown[0] as Sample);
	const both = samples.filter((sample) => entryOf(sample, key) !== undefined && listedOn(sample));
	const neither = samples
		.slice(from)
		.filter((sample) => entryOf(sample, key) === undefined && !listedOn(sample));
	// The page reads the calls, then the list: a commit between the two reads shows both in one answer, never neither.
	expect([both.length <= 1, neither.length]).toEqual([true, 0]);
	const replaced = samples[samples.indexOf(shown.at(-1) as Sample) + 1] as Sample;
	const hangUp = firstLine(log, /^RECV recv DCN/, zone);
	const replacedMs = replaced.atMs - (hangUp?.ms ?? 0);
	console.log(
		`hang-up (DCN) ${hangUp?.stamp} -> the entry replaced by ${slug} on /faxtest: ${replacedMs} ms`,
	);
	expect(listedOn(replaced)).toBe(true);
	expect(replacedMs).toBeLessThan(5000);
}

describe("a call on /faxtest while it happens (real calls)", () => {
	const threePages = () => join(ROOT, "fixtures/ingest/fax-g3-2d-fine.tif");
	const tif = () => join(ROOT, "fixtures/ingest/fax-g3-2d.tif");

	test("a 3-page call (ECM): /faxtest shows it answered, training, then each page arriving, in that order, each within 1 s of HylaFAX's line; after the hang-up the listed fax takes its place within seconds", async () => {
		const zone = receiverTimeZone();
		const before = await phoneFaxes();
		const logs = sessionLogNames();
		const watch = watchFaxtest(api, 100);
		let name = "";
		let fax: Fax | undefined;
		try {
			sendFaxWith(threePages());
			const listing = newPhoneFax(before, 150_000);
			name = await receiverLog(logs, 150_000);
			fax = (await listing).fax;
			const key = callKeyOf(sessionLog(name)) ?? "";
			const slug = fax.slug;
			await watch.until(
				(sample) => entryOf(sample, key) === undefined && sample.faxes.some((row) => row.slug === slug),
				15_000,
			);
		} finally {
			await watch.stop();
		}
		const log = sessionLog(name);
		const key = callKeyOf(log) ?? "";
		const slug = fax.slug;
		const samples = watch.samples;
		const rows = stepTimings(log, zone, samples, key);
		expect(watch.failures).toEqual([]);
		// Each step's line is in the log, and its state first showed within 1 s of it.
		expect(rows.map(({ step, line, delayMs }) => [step, line !== null, delayMs !== null])).toEqual(
			["answered", "training", "page 1 arriving", "page 2 arriving", "page 3 arriving"].map((step) => [
				step,
				true,
				true,
			]),
		);
		for (const { step, delayMs } of rows) {
			expect([step, Math.abs(delayMs ?? Number.NaN) <= 1000]).toEqual([step, true]);
		}
		const firstSeen = rows.map(({ seen }) => seen?.atMs ?? 0);
		expect(firstSeen).toEqual([...firstSeen].sort((a, b) => a - b));
		// What the call had done, by the last fetch that showed it. Page 3's time is in HylaFAX's
		// line after the DCN: the hand-over may list the fax before the feed's next write shows it.
		const shown = samples.filter((sample) => entryOf(sample, key) !== undefined);
		const last = entryOf(shown.at(-1) as Sample, key);
		console.log(`its last entry: ${last?.now}\n  done: ${last?.done.join("; ")}`);
		expect(last?.done).toEqual([
			"Answered as a fax call",
			expect.stringMatching(/^Your machine chose: /),
			expect.stringMatching(/^Training at .*: succeeded$/),
			expect.stringMatching(/^Page 1 came whole in /),
			expect.stringMatching(/^Page 2 came whole in /),
			expect.stringMatching(/^Page 3 came whole(?: in |$)/),
		]);
		expectFaxTookPlace(samples, shown, { key, slug, log, zone });
	});

	test("a sender killed as page 2 begins (ECM): the entry says your machine has gone silent, its seconds growing; when HylaFAX gives up (under 2 minutes), the listed fax takes its place with its outcome", async () => {
		const before = await phoneFaxes();
		const logs = sessionLogNames();
		const watch = watchFaxtest(api, 100);
		try {
			sendFaxWith(tif());
			// Killed as page 2 begins: its modem's carrier is up for the page, no frame of it sent yet.
			// HylaFAX waits 60 s for a frame's flag, then 45 s for the post-page message, and ends the
			// call about 1:45 after the kill (fixtures/hylafax/killmidpage). Killed in the midst of a
			// page's frames, the sending modem plays out the frames it holds (9 s here), the one it cut
			// fails its check, and HylaFAX reads on for up to 5 minutes (docs/decisions.md): too long here.
			await killSenderWhen(logs, /SEND recv MCF[\s\S]*AT\+FTM=146/);
			const killedAtMs = Date.now();
			const receiver = await until(() => newLog(logs, /: RECV FAX: begin/), 10_000, 20);
			const key = callKeyOf(sessionLog(receiver)) ?? "";
			const seconds = (sample: Sample) =>
				Number(/nothing from it for (\d+) s\./.exec(entryOf(sample, key)?.silence ?? "")?.[1] ?? Number.NaN);
			const silent = await watch.until((sample) => seconds(sample) >= 10, 30_000);
			await Bun.sleep(3000);
			const later = await watch.until((sample) => entryOf(sample, key) !== undefined, 5000);
			console.log(
				`sender killed as page 2 began: ${Math.round((silent.atMs - killedAtMs) / 1000)} s after the kill: "${entryOf(silent, key)?.now}" "${entryOf(silent, key)?.silence}"; ${Math.round((later.atMs - silent.atMs) / 1000)} s later: "${entryOf(later, key)?.silence}"`,
			);
			expect(entryOf(silent, key)?.silence).toStartWith("Your machine has gone silent: nothing from it for ");
			expect(seconds(later) - seconds(silent)).toBeGreaterThanOrEqual(2);
			const { fax, atMs } = await newPhoneFax(before, 180_000);
			const replaced = await watch.until((sample) => entryOf(sample, key) === undefined, 15_000);
			const row = replaced.faxes.find((entry) => entry.slug === fax.slug);
			const endMs = firstLine(sessionLog(receiver), /^SESSION END$/, receiverTimeZone())?.ms ?? 0;
			console.log(
				`sender killed as page 2 began: HylaFAX ended the call ${Math.round((endMs - killedAtMs) / 1000)} s after the kill (${xferfaxlogReason(receiver.slice(1))}); listed ${atMs - endMs} ms after its session end; its row on /faxtest: ${row?.outcome}`,
			);
			expect(row?.outcome).toMatch(/page 2/);
		} finally {
			await watch.stop();
		}
		expect(watch.failures).toEqual([]);
	}, 240_000);
});

describe("the cron sweep beside another hand-over of the same fax", () => {
	test("a fax listed and moved away by another hand-over while the sweep reaches it is not listed again, nor an empty file in its place", async () => {
		const queueFile = `fax8${String(Date.now()).slice(-8)}.tif`;
		requeue(firstTiff, queueFile, { keepTime: false });
		// A call that ended two minutes ago: a file made now has another receipt key.
		const ended = new Date(Date.now() - 120_000);
		utimesSync(join(RECVQ, queueFile), ended, ended);
		sh(faxgettyRuns(`recvq/${queueFile}`));
		const phoneBefore = await phoneFaxes();
		// Back in the queue as the sweep's find saw it, before the other hand-over moved it.
		requeue(join(LISTED, queueFile), queueFile, { keepTime: true });
		// The other hand-over moves the file the moment this sweep asks for the lock.
		const wrap = sh(["mktemp", "-d", "/var/tmp/testfax-sweep-XXXXXX"]).trim();
		writeFileSync(
			join(wrap, "flock"),
			`#!/bin/sh\nmv -f ${join(RECVQ, queueFile)} ${join(LISTED, queueFile)}\nexec /usr/bin/flock "$@"\n`,
			{ mode: 0o755 },
		);
		sh(["chmod", "0755", wrap]);
		try {
			sh(asUser("uucp", [`PATH=${wrap}:/usr/bin:/bin`, `${APP}/deploy/receivers/hylafax/faxrcvd`]));
		} finally {
			rmSync(wrap, { recursive: true, force: true });
		}
		expect(await phoneFaxes()).toEqual(phoneBefore);
		expect(readdirSync(RECVQ).filter((name) => name.startsWith("fax"))).toEqual([]);
	});
});

describe("the cron sweep and the logs of sending calls", () => {
	test("a sending call's session log, root's and 0600 (a sendfax on this host), is passed over without a word on stderr (cron mails it)", () => {
		const log = join(SPOOL, "log", `c9${String(Date.now()).slice(-8)}`);
		const sending = ["SESSION BEGIN 000000001 15550000", "SEND FAX: JOB 1 DEST 5550000", "SESSION END"];
		writeFileSync(log, sending.map((line) => `Nov 26 14:31:09.07: [ 9102]: ${line}\n`).join(""), {
			mode: 0o600,
		});
		try {
			const sweep = Bun.spawnSync(asUser("uucp", [`${APP}/deploy/receivers/hylafax/faxrcvd`]), {
				stdin: "ignore",
			});
			expect(sweep.stderr.toString()).toBe("");
		} finally {
			rmSync(log, { force: true });
		}
	});
});

describe("two hand-overs of one fax at once", () => {
	test("both succeed without a word on stderr (cron mails it), and the fax is listed once", async () => {
		const queueFile = `fax7${String(Date.now()).slice(-8)}.tif`;
		requeue(firstTiff, queueFile, { keepTime: false });
		const phoneBefore = await phoneFaxes();
		// Each opens the file at its start; a hand-over takes far longer than that,
		// so both hand it over and the second finds it moved by the first.
		const runs = await Promise.all(
			[1, 2].map(async () => {
				const run = Bun.spawn(faxgettyRuns(`recvq/${queueFile}`), { stdout: "pipe", stderr: "pipe" });
				const [stdout, stderr] = await Promise.all([
					new Response(run.stdout).text(),
					new Response(run.stderr).text(),
				]);
				return { code: await run.exited, stdout, stderr };
			}),
		);
		expect(runs).toEqual([
			{ code: 0, stdout: "", stderr: "" },
			{ code: 0, stdout: "", stderr: "" },
		]);
		expect((await phoneFaxes()).length).toBe(phoneBefore.length + 1);
		expect(readdirSync(RECVQ).filter((name) => name.startsWith("fax"))).toEqual([]);
	});
});

describe("least privilege, checked as each user", () => {
	test("HylaFAX's user, uucp, which every HylaFAX daemon runs as, can neither write the database, the stored files nor the settings, nor read the settings", () => {
		// This host's daemons only: a container's HylaFAX shows in the host's process list too.
		for (const daemon of ["faxq", "hfaxd"]) {
			const pids = sh(["pgrep", "--ns", String(process.pid), "--nslist", "pid", "-x", daemon])
				.trim()
				.split("\n");
			expect([daemon, pids.map((pid) => sh(["ps", "-o", "user=", "-p", pid]).trim())]).toEqual([
				daemon,
				["uucp"],
			]);
		}
		const stored = sh(["find", host.data.dir, "-mindepth", "1"]).trim().split("\n");
		expect(stored.length).toBeGreaterThan(4);
		for (const path of [host.data.dir, ...stored, SETTINGS])
			expect([path, userCan("uucp", "-w", path)]).toEqual([path, false]);
		expect(userCan("uucp", "-r", SETTINGS)).toBe(false);
		expect(userCan("testfax", "-r", SETTINGS)).toBe(true);
	});

	test("the API server runs as testfax with no other group, and cannot write HylaFAX's spool or configuration", () => {
		const pid = readFileSync("/run/testfax-receivers/server.pid", "utf8").trim();
		const status = readFileSync(`/proc/${pid}/status`, "utf8");
		const id = (name: string) => sh(["id", "-u", name]).trim();
		expect(/^Uid:\t(\d+)/m.exec(status)?.[1]).toBe(id("testfax"));
		expect(/^Groups:\t(.*)$/m.exec(status)?.[1]?.trim()).toBe(sh(["id", "-g", "testfax"]).trim());
		const hylafax = [
			SPOOL,
			join(SPOOL, "etc"),
			RECVQ,
			LISTED,
			firstTiff,
			"/etc/hylafax",
			"/etc/hylafax/config.ttyIAX0",
		];
		for (const path of hylafax) expect([path, userCan("testfax", "-w", path)]).toEqual([path, false]);
		expect(userCan("testfax", "-r", firstTiff)).toBe(false);
	});

	test("during a call, fax follow-call runs as testfax and the tail that reads the session log for it as uucp; testfax cannot read that log", async () => {
		const before = await phoneFaxes();
		const logs = sessionLogNames();
		sendFaxWith(join(ROOT, "fixtures/ingest/fax-g3-2d.tif"));
		const name = await until(() => newLog(logs, /: RECV FAX: begin/), 150_000, 20);
		const log = join(SPOOL, "log", name);
		// Each one process, whose user is asked of ps while the call lasts.
		const usersOf = async (pattern: string) => {
			const pids = await until(() => {
				const found = Bun.spawnSync(["pgrep", "-f", pattern]).stdout.toString().trim();
				return found === "" ? undefined : found.split("\n");
			}, 10_000);
			return pids.map((pid) => sh(["ps", "-o", "user=", "-p", pid]).trim());
		};
		expect(await usersOf(` bin/fax\\.ts follow-call ${name}$`)).toEqual(["testfax"]);
		expect(await usersOf(`^tail .* -f log/${name}$`)).toEqual(["uucp"]);
		expect(sessionLog(name)).not.toMatch(/: SESSION END/);
		expect(userCan("testfax", "-r", log)).toBe(false);
		expect(userCan("uucp", "-r", log)).toBe(true);
		// Listed before the tests after it read the queue.
		await newPhoneFax(before, 150_000);
	});

	test("the server, as testfax, reads both receivers' queues for /metrics: nothing of HylaFAX's waits", async () => {
		const metrics = await (await fetch(`http://127.0.0.1:${settings.ADMIN_PORT}/metrics`)).text();
		for (const receiver of ["hylafax", "postfix"]) {
			expect(metrics).toContain(`testfax_receiver_queue_readable{receiver="${receiver}"} 1\n`);
		}
		// Every fax of the calls above was listed and left recvq/ for recvq/listed/.
		expect(metrics).toContain('testfax_receiver_waiting{receiver="hylafax"} 0\n');
	});

	test("the hand-over is one command: uucp may run hand-over as testfax, and nothing else", () => {
		// Asked by root (sudo -U): uucp asking for what it may not run would mail root a security report.
		const allowed = (user: string, command: string[]) =>
			Bun.spawnSync(["sudo", "-n", "-l", "-U", "uucp", "-u", user, ...command]).exitCode === 0;
		const handOver = `${APP}/deploy/receivers/hylafax/hand-over`;
		expect(allowed("testfax", [handOver, "fax000000001.tif"])).toBe(true);
		expect(allowed("testfax", ["/bin/sh", "-c", "id"])).toBe(false);
		expect(allowed("testfax", [`${APP}/bin/testfax`, "fax", "purge"])).toBe(false);
		expect(allowed("root", [handOver])).toBe(false);
		const rules = sh(["sudo", "-n", "-l", "-U", "uucp"]).split("may run the following commands")[1] ?? "";
		expect(rules.trim().split("\n").slice(1)).toEqual([`    (testfax) NOPASSWD: ${handOver}`]);
		expect(sh(["postconf", "-M", "testfax/unix"])).toMatch(/ user=testfax argv=/);
	});

	test("mail-watch reads Postfix's log as testfax-maillog and hands smtpd's lines to fax watch-mail as testfax, its one sudo command; testfax cannot read the log", () => {
		const usersOf = (pattern: string) =>
			sh(["pgrep", "-f", pattern])
				.trim()
				.split("\n")
				.map((pid) => sh(["ps", "-o", "user=", "-p", pid]).trim());
		expect(usersOf(`^tail -F -n 0 ${host.mailLog}$`)).toEqual(["testfax-maillog"]);
		expect(usersOf(" bin/fax\\.ts watch-mail$")).toEqual(["testfax"]);
		expect(userCan("testfax", "-r", host.mailLog)).toBe(false);
		expect(userCan("testfax-maillog", "-r", host.mailLog)).toBe(true);
		expect(userCan("testfax-maillog", "-w", host.mailLog)).toBe(false);
		expect(userCan("testfax-maillog", "-r", SETTINGS)).toBe(false);
		expect(userCan("testfax-maillog", "-w", databasePath())).toBe(false);
		const rules =
			sh(["sudo", "-n", "-l", "-U", "testfax-maillog"]).split("may run the following commands")[1] ?? "";
		expect(rules.trim().split("\n").slice(1)).toEqual([
			`    (testfax) NOPASSWD: ${APP}/deploy/receivers/postfix/watch-mail`,
		]);
		expect(sh(["id", "-Gn", "testfax-maillog"]).trim().split(" ").sort()).toEqual(["adm", "testfax-maillog"]);
	});

	test("every file the service wrote is testfax's, its group's to read and write, and nobody else's", () => {
		const modes = sh(["find", host.data.dir, "-mindepth", "1", "-printf", "%M %u %g %p\\n"])
			.trim()
			.split("\n");
		for (const entry of modes) expect(entry).toMatch(/^(-rw-rw----|drwxrws---) testfax testfax /);
	});
});

describe("the host's own account of itself", () => {
	test("install.sh starts nothing from a checkout whose document pipeline does not load, and says why in one line", () => {
		const broken = checkoutWithoutSharpBinary();
		try {
			const refused = Bun.spawnSync([INSTALL, "--start", "--app", broken.dir]);
			expect([refused.exitCode, refused.stdout.toString(), refused.stderr.toString()]).toEqual([
				1,
				"",
				`install.sh: fax check: the document pipeline cannot load sharp: Could not load the "sharp" module using the linux-x64 runtime; nothing started (run npm ci in ${broken.dir} again: docs/operations/instance.md, "Node on Debian 12")\n`,
			]);
		} finally {
			broken.remove();
		}
	});

	test("hfaxd listens on loopback only; the iaxmodem configs (their secret) and the logs (raw senders) are not for every user", () => {
		const listening = sh(["ss", "-Hltn", "sport = :4559"]).trim().split("\n");
		expect(listening.map((line) => line.split(/\s+/)[3])).toEqual(["127.0.0.1:4559"]);
		for (const path of ["/etc/iaxmodem/ttyIAX0", "/etc/iaxmodem/ttyIAX1"])
			expect(sh(["stat", "-c", "%n %a %U:%G", path]).trim()).toBe(`${path} 640 root:root`);
		for (const path of [SYSLOG, host.mailLog])
			expect(sh(["stat", "-c", "%n %a %U:%G", path]).trim()).toBe(`${path} 640 root:adm`);
	});

	test("--status says one line per daemon and exits 3 with one faxgetty and call-watch killed; --start brings them back", async () => {
		const running = Bun.spawnSync([INSTALL, "--status"]);
		const lines = running.stdout.toString().trim().split("\n");
		expect([running.exitCode, lines.map((line) => line.replace(/ \(pid \d+\)$/, ""))]).toEqual([
			0,
			ALL_RUNNING,
		]);
		const watcher = readFileSync("/run/testfax-receivers/call-watch.pid", "utf8").trim();
		sh(["kill", readFileSync("/run/testfax-receivers/faxgetty-ttyIAX0.pid", "utf8").trim(), watcher]);
		await until(() => (Bun.spawnSync([INSTALL, "--status"]).exitCode === 3 ? true : undefined), 10_000, 100);
		const down = Bun.spawnSync([INSTALL, "--status"]).stdout.toString();
		expect(down).toContain("install.sh: faxgetty ttyIAX0 NOT running\n");
		expect(down).toContain("install.sh: call-watch NOT running\n");
		// Its inotifywait went with it: nothing of the watcher is left.
		await until(() => (Bun.spawnSync(["pgrep", "-g", watcher]).exitCode === 1 ? true : undefined), 5000);
		sh([INSTALL, "--start"]);
		expect(Bun.spawnSync([INSTALL, "--status"]).exitCode).toBe(0);
		await until(
			() => (sh(["faxstat", "-s"]).match(/Running and idle/g)?.length === 2 ? true : undefined),
			60_000,
			500,
		);
	});

	test("--status finds cron by the pid file it keeps: a cron process that runs a job is not the daemon, and --start starts it again", async () => {
		// Each job runs in a forked process named cron: one that outlived the
		// daemon made --status say running and --start skip it.
		const dir = mkdtempSync(join(tmpdir(), "testfax-cron-job-"));
		copyFileSync("/bin/sleep", join(dir, "cron"));
		const job = Bun.spawn([join(dir, "cron"), "120"]);
		try {
			sh(["kill", readFileSync("/run/crond.pid", "utf8").trim()]);
			await until(
				() => (Bun.spawnSync([INSTALL, "--status"]).exitCode === 3 ? true : undefined),
				10_000,
				100,
			);
			expect(Bun.spawnSync([INSTALL, "--status"]).stdout.toString()).toContain(
				"install.sh: cron NOT running\n",
			);
			sh([INSTALL, "--start"]);
			expect(Bun.spawnSync([INSTALL, "--status"]).exitCode).toBe(0);
		} finally {
			job.kill();
			await job.exited;
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test("--restart server restarts the API server alone, which answers again", async () => {
		const pidFile = "/run/testfax-receivers/server.pid";
		const before = readFileSync(pidFile, "utf8").trim();
		const faxq = readFileSync("/run/testfax-receivers/faxq.pid", "utf8").trim();
		expect(sh([INSTALL, "--restart", "server"])).toBe(
			"install.sh: stopped server\ninstall.sh: started the API server (log: /var/log/testfax-api.log)\n",
		);
		expect(readFileSync(pidFile, "utf8").trim()).not.toBe(before);
		expect(readFileSync("/run/testfax-receivers/faxq.pid", "utf8").trim()).toBe(faxq);
		await untilServing();
	});
});

describe("an upgrade into another folder", () => {
	test("install.sh run from another folder takes over what it wrote from the first, and back again", async () => {
		const next = "/opt/testfax-api-next";
		const unmount = mountAt(next);
		try {
			const moved = Bun.spawnSync([`${next}/deploy/receivers/install.sh`]);
			expect([moved.exitCode, moved.stderr.toString()]).toEqual([0, ""]);
			expect(moved.stdout.toString()).toContain(
				"install.sh: Postfix: master.cf service testfax, user=testfax\n",
			);
			expect(sh(["postconf", "-M", "testfax/unix"])).toContain(
				`argv=${next}/deploy/receivers/postfix/testfax-mail `,
			);
			expect(readFileSync("/etc/cron.d/testfax", "utf8")).toContain(
				`uucp ${next}/deploy/receivers/hylafax/faxrcvd\n`,
			);
			expect(readFileSync("/run/testfax-receivers/server.app", "utf8")).toBe(`${next}\n`);
			const back = Bun.spawnSync([INSTALL]);
			expect([back.exitCode, back.stderr.toString()]).toEqual([0, ""]);
			expect(sh(["postconf", "-M", "testfax/unix"])).toContain(
				`argv=${APP}/deploy/receivers/postfix/testfax-mail `,
			);
			expect(Bun.spawnSync([INSTALL, "--status"]).exitCode).toBe(0);
			await untilServing();
		} finally {
			unmount();
		}
	});
});

/** A received file put back into the queue as `name`, uucp's, as faxgetty leaves one. */
function requeue(tiff: string, name: string, options: { keepTime: boolean }) {
	const path = join(RECVQ, name);
	copyFileSync(tiff, path);
	sh(["chown", "uucp:uucp", path]);
	if (options.keepTime) {
		const { atime, mtime } = statSync(tiff);
		utimesSync(path, atime, mtime);
	}
	return { queued: statSync(path), listed: join(LISTED, name) };
}

/** `fax wait` for a 2-page fax since `since`: the line it prints, and when. */
async function waitingClient(since: string): Promise<{ line: string; atMs: number }> {
	const child = Bun.spawn(
		[
			process.execPath,
			"bin/fax.ts",
			"wait",
			"--base-url",
			api,
			"--since",
			since,
			"--pages",
			"2",
			"--timeout",
			"170",
			"--quiet",
		],
		{ cwd: ROOT, stdout: "pipe", stderr: "pipe" },
	);
	const decoder = new TextDecoder();
	let seen = "";
	for await (const chunk of child.stdout) {
		seen += decoder.decode(chunk, { stream: true });
		if (seen.includes("\n")) return { line: seen.trim(), atMs: Date.now() };
	}
	throw new Error(`fax wait printed nothing: ${await new Response(child.stderr).text()}`);
}

/** When the sender hung up (DCN), from the session log (centiseconds) of the call that wrote `queueFile`. */
function hangUpOf(queueFile: string): number | undefined {
	const logDir = join(SPOOL, "log");
	for (const name of readdirSync(logDir).filter((entry) => /^c\d+$/.test(entry))) {
		const log = readFileSync(join(logDir, name), "utf8");
		if (!log.includes(`"recvq/${queueFile}"`)) continue;
		// The process id is padded to five places: "[  525]".
		const stamp = /^(\w{3} +\d+ [\d:.]+): \[ *\d+\]: RECV recv DCN/m.exec(log)?.[1];
		if (stamp) return new Date(`${stamp} ${new Date().getFullYear()}`).getTime();
	}
	return undefined;
}

/** faxrcvd as faxgetty runs it: as uucp with no other group and no environment, in the spool. */
function faxgettyRuns(queueFile: string): string[] {
	return asUser(
		"uucp",
		[
			"sh",
			"-c",
			`cd ${SPOOL} && exec "$0" "$@"`,
			`${APP}/deploy/receivers/hylafax/faxrcvd`,
			queueFile,
			"ttyIAX0",
			"000000001",
			"",
			"15550100",
			"Test Sender",
			"<NONE>",
			"5550000",
		],
		{ groups: "clear" },
	);
}

/** The sweep line install.sh wrote into /etc/cron.d/testfax, as cron runs it: its user, no environment. */
/** How long one hand-over of the call `name` takes, as faxrcvd runs it (uucp, sudo, testfax). */
function handOverCostMs(name: string): number {
	const started = performance.now();
	const run = Bun.spawnSync(
		asUser("uucp", [
			"/usr/bin/sudo",
			"-n",
			"-u",
			"testfax",
			join(APP, "deploy/receivers/hylafax/hand-over"),
			name,
		]),
		{ stdin: Bun.file(join(SPOOL, "log", name)) },
	);
	expect(run.stdout.toString()).toStartWith(`${name}: already listed as fax_`);
	return Math.round(performance.now() - started);
}

function runCronLine(): void {
	const entry = readFileSync("/etc/cron.d/testfax", "utf8")
		.split("\n")
		.find((row) => row.startsWith("* * * * * "));
	const [, , , , , user, ...command] = entry?.split(/\s+/) ?? [];
	sh(asUser(user ?? "", command));
}

// Last in the file, so it runs after every other test: the undoing itself, with what it must leave.
describe("handing the host back", () => {
	test("the host is handed back to the folder its receivers ran from: master.cf, the cron file and server.app name it, and every daemon runs again", () => {
		const found = host.found;
		handedBack = true;
		host.undo();
		if (found === null)
			throw new Error("the test found no receivers of another folder: operatorInstall makes them");
		expect(installedFrom()).toBe(found.folder);
		expect(readFileSync("/etc/cron.d/testfax", "utf8")).toContain(
			`uucp ${found.folder}/deploy/receivers/hylafax/faxrcvd\n`,
		);
		expect(readFileSync("/run/testfax-receivers/server.app", "utf8")).toBe(`${found.folder}\n`);
		const status = Bun.spawnSync([join(found.folder, "deploy/receivers/install.sh"), "--status"]);
		expect([status.exitCode, withoutPids(status.stdout.toString())]).toEqual([
			found.running ? 0 : 3,
			found.status,
		]);
	});
});

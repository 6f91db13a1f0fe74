/**
 * `npm run test:receivers`: the receivers of docs/operations.md installed from
 * deploy/receivers as an operator does (testkit/receivers.ts), a test email
 * through real Postfix and a test fax through a real HylaFAX call, each listed
 * once, at the time the receiver got it, whatever fails on the way. Outside
 * the default run: it installs system-wide configuration and needs root.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../testkit/ports.ts";
import {
	APP,
	asUser,
	configureHylafax,
	configurePostfix,
	type FaxLine,
	installApp,
	logLines,
	makeDataDir,
	ROOT,
	retryDeferredMail,
	SETTINGS,
	SPOOL,
	sendMail,
	sh,
	startFaxLine,
	startSyslog,
	until,
	writeSettings,
} from "../../testkit/receivers.ts";
import { untilListening } from "../../testkit/server-process.ts";

setDefaultTimeout(180_000);

interface Fax {
	slug: string;
	source: string;
	from: string | null;
	received_at: string;
	page_count: number | null;
}

const started = Math.floor(Date.now() / 1000) - 60;
const logs = sh(["mktemp", "-d", "/var/tmp/testfax-receivers-logs-XXXXXX"]).trim();
const mailLog = join(logs, "mail.log");
const syslog = join(logs, "syslog");
const data = { dir: "", storage: "", release: () => {} };
let settings: Record<string, string>;
let api = "";
let server: Bun.Subprocess | undefined;
let syslogd: Bun.Subprocess | undefined;
let line: FaxLine | undefined;

async function startApi(): Promise<void> {
	const child = Bun.spawn(asUser("testfax", [`${APP}/bin/testfax`, "server"]), {
		stdout: "ignore",
		stderr: "pipe",
	});
	server = child;
	await untilListening(child.stderr, "the server");
}

function useSettings(changes: Record<string, string> = {}): void {
	writeSettings({ ...settings, ...changes });
}

let uninstallApp = () => {};

beforeAll(async () => {
	uninstallApp = installApp();
	Object.assign(data, makeDataDir(8 * 1024 * 1024));
	const port = await freePort();
	api = `http://127.0.0.1:${port}`;
	settings = {
		DATABASE_PATH: join(data.dir, "faxes.sqlite"),
		STORAGE_DIR: data.storage,
		HOST: "127.0.0.1",
		PORT: String(port),
		ADMIN_PORT: String(await freePort()),
		CDN_BASE_URL: `${api}/cdn`,
		SITE_BASE_URL: api,
		RATE_LIMIT_PER_MINUTE: "100000",
		BUSY_TIMEOUT_MS: "1000",
	};
	useSettings();
	syslogd = startSyslog(syslog);
	await startApi();
	configurePostfix(mailLog);
	configureHylafax();
	line = await startFaxLine();
});

afterAll(() => {
	line?.stop();
	server?.kill();
	syslogd?.kill();
	sh(["postfix", "stop"]);
	data.release();
	uninstallApp();
	rmSync(logs, { recursive: true, force: true });
});

async function listed(query = ""): Promise<Fax[]> {
	const answer = await fetch(
		`${api}/api/faxes?limit=100&since=${new Date(started * 1000).toISOString()}${query}`,
	);
	expect(answer.status).toBe(200);
	return (await answer.json()) as Fax[];
}

const bySender = (sender: string) => listed(`&from=${encodeURIComponent(sender)}`);

/** The scan-to-email fixture from `sender`, with a Message-ID of its own unless told otherwise. */
async function scanEmail(
	sender: string,
	messageId: string | null = `<${crypto.randomUUID()}@mfp.test.example>`,
) {
	const fixture = await Bun.file(join(ROOT, "fixtures/ingest/scan-to-email.eml")).text();
	return fixture
		.replace(/^From: .*$/m, `From: <${sender}>`)
		.replace(/^Message-ID: .*\r?\n/m, messageId === null ? "" : `Message-ID: ${messageId}\r\n`);
}

const isoSecond = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

/** A failure set up, then undone. */
interface Failure {
	name: string;
	/** What the line the operator reads says. */
	reason: RegExp;
	cause(): void;
	/** While the hand-over runs. */
	during?(): Promise<void>;
	fix(): void;
}

let holder: Database | undefined;
const bun = join(ROOT, "node_modules/.bin/bun");
const filler = () => join(data.storage, "filler");

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
		async during() {
			const pid = await until(
				() => {
					const found = Bun.spawnSync(["pgrep", "-f", "bin/fax.ts receive-"]).stdout.toString().trim();
					return found === "" ? undefined : found.split("\n")[0];
				},
				20_000,
				20,
			);
			// Past the document's processing, waiting for the write lock: its files are written, its row is not.
			await Bun.sleep(1500);
			process.kill(Number(pid), "SIGKILL");
		},
		fix() {
			releaseDatabase();
			useSettings();
		},
	},
];

function holdDatabase(): void {
	holder = new Database(settings.DATABASE_PATH ?? "");
	holder.exec("BEGIN IMMEDIATE");
}

function releaseDatabase(): void {
	holder?.exec("ROLLBACK");
	holder?.close();
}

describe("Postfix", () => {
	test("a scan-to-email is listed once, at the time Postfix received it; delivered again, it is not listed twice", async () => {
		const message = await scanEmail("first@scan.test.example");
		const { queuedAtMs } = await sendMail(message);
		const faxes = await until(
			async () => {
				const found = await bySender("first@scan.test.example");
				return found.length > 0 ? found : undefined;
			},
			10_000,
			10,
		);
		const latencyMs = Date.now() - queuedAtMs;
		console.log(`Postfix: SMTP transaction end -> listed in ${latencyMs} ms`);
		expect(latencyMs).toBeLessThan(5000);
		expect(faxes).toHaveLength(1);
		expect(faxes[0]).toMatchObject({ source: "email", from: "f***@s***.example", page_count: 2 });
		expect(Date.parse(faxes[0]?.received_at ?? "")).toBeLessThanOrEqual(queuedAtMs);
		expect(Date.parse(faxes[0]?.received_at ?? "")).toBeGreaterThan(queuedAtMs - 5000);
		expect((await fetch(`${api}/cdn/faxes/${faxes[0]?.slug}.pdf`)).status).toBe(200);

		await sendMail(message);
		await until(() => (logLines(mailLog, /status=sent/).length >= 2 ? true : undefined), 10_000);
		expect(await bySender("first@scan.test.example")).toEqual(faxes);
	});

	for (const failure of failures) {
		test(`${failure.name}: the message is deferred with the reason in the mail log, then listed once at its arrival time`, async () => {
			const sender = `${failure.name.replaceAll(" ", "-")}@scan.test.example`;
			const deferredBefore = logLines(mailLog, /status=deferred/).length;
			failure.cause();
			let queuedAtMs = 0;
			try {
				const sent = sendMail(await scanEmail(sender));
				await failure.during?.();
				({ queuedAtMs } = await sent);
				const deferred = await until(() => {
					const lines = logLines(mailLog, /status=deferred/);
					return lines.length > deferredBefore ? lines.at(-1) : undefined;
				}, 20_000);
				expect(deferred).toMatch(failure.reason);
				expect(logLines(mailLog, /status=bounced/)).toEqual([]);
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
			expect(faxes[0]?.received_at).toBe(isoSecond(queuedAtMs));
		});
	}
});

describe("HylaFAX", () => {
	let first: Fax;
	let firstQueueFile = "";

	test("a fax by phone is listed once, at its last page's write, and a waiting client prints it within 1.5 s of the hang-up; faxrcvd run again lists nothing new", async () => {
		const before = new Set(readdirSync(join(SPOOL, "recvq")));
		const client = waitingClient(new Date().toISOString());
		line?.send(join(ROOT, "fixtures/ingest/fax-g3-2d.tif"));
		const faxes = await until(
			async () => {
				const found = (await listed()).filter((fax) => fax.source === "phone");
				return found.length > 0 ? found : undefined;
			},
			150_000,
			10,
		);
		const listedAtMs = Date.now();
		const printed = await client;
		firstQueueFile =
			readdirSync(join(SPOOL, "recvq")).find((name) => !before.has(name) && name !== "seqf") ?? "";
		const lastPageMs = statSync(join(SPOOL, "recvq", firstQueueFile)).mtimeMs;
		const hangUpMs = hangUpOf(firstQueueFile);
		console.log(
			`HylaFAX: last page written -> hang-up ${Math.round(hangUpMs - lastPageMs)} ms; hang-up -> listed ${Math.round(listedAtMs - hangUpMs)} ms (polled every 10 ms); hang-up -> fax wait printed it ${Math.round(printed.atMs - hangUpMs)} ms`,
		);
		expect(printed.atMs - hangUpMs).toBeLessThan(1500);
		expect(faxes).toHaveLength(1);
		first = faxes[0] as Fax;
		expect(JSON.parse(printed.line)).toEqual(first);
		expect(first).toMatchObject({ source: "phone", page_count: 2, received_at: isoSecond(lastPageMs) });
		await until(() => (logLines(syslog, /testfax: .*listed as fax_/).length > 0 ? true : undefined), 5000);

		sh(faxgettyRuns(`recvq/${firstQueueFile}`));
		expect(logLines(syslog, /testfax: .*already listed as/).at(-1)).toContain(
			`recvq/${firstQueueFile}: already listed as ${first.slug}`,
		);
		expect((await listed()).filter((fax) => fax.source === "phone")).toEqual([first]);
	});

	test("the settings file missing during a call: one line in syslog, and the cron sweep lists the fax once, at its last page's write", async () => {
		const before = new Set(readdirSync(join(SPOOL, "recvq")));
		renameSync(SETTINGS, `${SETTINGS}.away`);
		let queueFile = "";
		try {
			line?.send(join(ROOT, "fixtures/ingest/fax-g3-2d.tif"));
			const failed = await until(
				() => logLines(syslog, /testfax: .*settings file .* is missing/).at(-1),
				150_000,
				100,
			);
			expect(failed).toContain("daemon.err");
			queueFile =
				readdirSync(join(SPOOL, "recvq")).find((name) => !before.has(name) && name !== "seqf") ?? "";
			expect((await listed()).filter((fax) => fax.source === "phone")).toEqual([first]);
		} finally {
			renameSync(`${SETTINGS}.away`, SETTINGS);
		}
		runCronLine();
		const phone = (await listed()).filter((fax) => fax.source === "phone");
		expect(phone).toHaveLength(2);
		expect(phone.find((fax) => fax.slug !== first.slug)?.received_at).toBe(
			isoSecond(statSync(join(SPOOL, "recvq", queueFile)).mtimeMs),
		);
		runCronLine();
		expect((await listed()).filter((fax) => fax.source === "phone")).toHaveLength(2);
	});

	for (const failure of failures) {
		test(`${failure.name}: faxrcvd leaves one line in syslog, and the cron sweep lists the fax once`, async () => {
			const queueFile = `fax9${String(failures.indexOf(failure)).padStart(8, "0")}.tif`;
			const path = join(SPOOL, "recvq", queueFile);
			copyFileSync(join(SPOOL, "recvq", firstQueueFile), path);
			sh(["chown", "uucp:uucp", path]);
			const phoneBefore = (await listed()).filter((fax) => fax.source === "phone").length;
			const errorsBefore = logLines(syslog, /daemon\.err testfax:/).length;
			failure.cause();
			try {
				const run = Bun.spawn(faxgettyRuns(`recvq/${queueFile}`));
				await failure.during?.();
				await run.exited;
				const errors = logLines(syslog, /daemon\.err testfax:/);
				expect(errors.length).toBe(errorsBefore + 1);
				expect(errors.at(-1)).toMatch(failure.reason);
				expect((await listed()).filter((fax) => fax.source === "phone")).toHaveLength(phoneBefore);
			} finally {
				failure.fix();
			}
			runCronLine();
			runCronLine();
			const phone = (await listed()).filter((fax) => fax.source === "phone");
			expect(phone).toHaveLength(phoneBefore + 1);
			expect(phone[0]?.received_at).toBe(isoSecond(statSync(path).mtimeMs));
		});
	}
});

test("every file the receivers and the server wrote is the shared group's to read and write, and nobody else's", () => {
	const modes = sh(["find", data.dir, "-mindepth", "1", "-printf", "%M %g %p\\n"]).trim().split("\n");
	expect(modes.length).toBeGreaterThan(4);
	for (const entry of modes) expect(entry).toMatch(/^(-rw-rw----|drwxrws---) uucp /);
});

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
function hangUpOf(queueFile: string): number {
	const logDir = join(SPOOL, "log");
	for (const name of readdirSync(logDir).filter((entry) => /^c\d+$/.test(entry))) {
		const log = readFileSync(join(logDir, name), "utf8");
		if (!log.includes(`"recvq/${queueFile}"`)) continue;
		const stamp = /^(\w{3} +\d+ [\d:.]+): \[\d+\]: RECV recv DCN/m.exec(log)?.[1];
		if (stamp) return new Date(`${stamp} ${new Date().getFullYear()}`).getTime();
	}
	throw new Error(`no session log names recvq/${queueFile}`);
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

/** The line of deploy/receivers/hylafax/testfax.cron, as cron runs it: its user, no environment. */
function runCronLine(): void {
	const entry = readFileSync(join(ROOT, "deploy/receivers/hylafax/testfax.cron"), "utf8")
		.split("\n")
		.find((row) => /^[*\d]/.test(row));
	const [, , , , , user, ...command] = entry?.split(/\s+/) ?? [];
	sh(asUser(user ?? "", command));
}

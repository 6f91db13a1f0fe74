import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir, runFax, startTestServer, type TestServer } from "../../testkit/server.ts";

const fixturePath = (name: string) => join(import.meta.dir, "../../fixtures", name);

interface Fax {
	slug: string;
	from: string | null;
	received_at: string;
	page_count: number | null;
}

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

async function listedFrom(sender: string): Promise<Fax[]> {
	const answer = await server.request(
		`/api/faxes?limit=100&since=2000-01-01T00:00:00Z&from=${encodeURIComponent(sender)}`,
	);
	return (await answer.json()) as Fax[];
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");

/** The scan-to-email fixture as a mail server relays it: its own Received line on top. */
async function relayedEmail(options: { sender: string; messageId: string | null; relayedAt: number }) {
	const fixture = await Bun.file(fixturePath("ingest/scan-to-email.eml")).text();
	const relayed = new Date(options.relayedAt * 1000).toUTCString().replace("GMT", "+0000");
	const message = fixture
		.replace(/^From: .*$/m, `From: <${options.sender}>`)
		.replace(
			/^Message-ID: .*\r?\n/m,
			options.messageId === null ? "" : `Message-ID: ${options.messageId}\r\n`,
		);
	return `Received: from mfp (mfp [127.0.0.1])\r\n\tby mx.test.example (Postfix) with ESMTP id 4Xk2;\r\n\t${relayed} (UTC)\r\n${message}`;
}

describe("fax receive-mail", () => {
	test("listed at the time of the first Received header, however long ago; the same Message-ID again lists nothing new", async () => {
		const relayedAt = Math.floor(Date.now() / 1000) - 3 * 3600;
		const message = await relayedEmail({
			sender: "mail-1@scan.test.example",
			messageId: "<m1@test>",
			relayedAt,
		});
		const first = await runFax(["receive-mail", "Q1"], server.env, message);
		expect(first.code).toBe(0);
		expect(first.stdout).toMatch(/^receive-mail: listed as fax_[A-Za-z0-9]{12}\n$/);
		const faxes = await listedFrom("mail-1@scan.test.example");
		expect(faxes.map((fax) => [fax.slug, fax.received_at, fax.page_count])).toEqual([
			[first.stdout.trim().split(" ").at(-1) ?? "", iso(relayedAt), 2],
		]);
		const again = await runFax(["receive-mail", "Q2"], server.env, message);
		expect(again).toEqual({
			code: 0,
			stdout: `receive-mail: already listed as ${faxes[0]?.slug}\n`,
			stderr: "",
		});
		expect(await listedFrom("mail-1@scan.test.example")).toEqual(faxes);
	});

	test("a device that writes one Message-ID on every scan: scans of other times are other tests", async () => {
		const relayedAt = Math.floor(Date.now() / 1000) - 60;
		const message = await relayedEmail({
			sender: "mail-4@scan.test.example",
			messageId: "<same@mfp>",
			relayedAt,
		});
		const later = message.replace(/^Date: .*$/m, "Date: Fri, 20 Nov 2026 09:20:00 +0100");
		expect((await runFax(["receive-mail", "Q41"], server.env, message)).stdout).toStartWith(
			"receive-mail: listed as",
		);
		expect((await runFax(["receive-mail", "Q42"], server.env, later)).stdout).toStartWith(
			"receive-mail: listed as",
		);
		expect((await runFax(["receive-mail", "Q43"], server.env, later)).stdout).toStartWith(
			"receive-mail: already listed as",
		);
		expect(await listedFrom("mail-4@scan.test.example")).toHaveLength(2);
	});

	/** A relayed email with one attachment, a fixed Message-ID and Date, as a device without a clock sends. */
	function emailWith(sender: string, attachment: { type: string; bytes: Uint8Array }, body?: string) {
		const encoded = Buffer.from(attachment.bytes).toString("base64").replace(/.{76}/g, "$&\r\n");
		const relayed = new Date().toUTCString().replace("GMT", "+0000");
		return [
			`Received: from mfp (mfp [127.0.0.1])\r\n\tby mx.test.example (Postfix) with ESMTP id 4Xk9;\r\n\t${relayed} (UTC)`,
			`From: <${sender}>`,
			"Date: Thu, 01 Jan 2026 00:00:00 +0000",
			"Message-ID: <scan@mfp-without-clock>",
			"MIME-Version: 1.0",
			'Content-Type: multipart/mixed; boundary="b"',
			"",
			"--b",
			body ??
				`Content-Type: ${attachment.type}; name="scan"\r\nContent-Transfer-Encoding: base64\r\n\r\n${encoded}`,
			"--b--",
			"",
		].join("\r\n");
	}

	test("one Message-ID and Date, two documents: two faxes; the same document again: still one", async () => {
		const sender = "mail-5@scan.test.example";
		const tiff = (name: string) => Bun.file(fixturePath(`ingest/${name}`)).bytes();
		const first = emailWith(sender, { type: "image/tiff", bytes: await tiff("fax-g3-2d.tif") });
		const second = emailWith(sender, { type: "image/tiff", bytes: await tiff("fax-g3-2d-fine.tif") });
		expect((await runFax(["receive-mail", "Q51"], server.env, first)).stdout).toStartWith(
			"receive-mail: listed as",
		);
		expect((await runFax(["receive-mail", "Q52"], server.env, second)).stdout).toStartWith(
			"receive-mail: listed as",
		);
		expect((await runFax(["receive-mail", "Q53"], server.env, first)).stdout).toStartWith(
			"receive-mail: already listed as",
		);
		expect(await listedFrom(sender)).toHaveLength(2);
	});

	test("past the size limits, or the MIME limits, the listing keeps its sender and names the limit", async () => {
		const cases = [
			["mail-6@scan.test.example", 40 * 1024 * 1024 + 1, "file is larger than 40 MiB"],
			["mail-7@scan.test.example", 46 * 1024 * 1024, "email is larger than 60 MiB"],
		] as const;
		for (const [sender, size, reason] of cases) {
			const message = emailWith(sender, { type: "application/pdf", bytes: new Uint8Array(size) });
			const run = await runFax(["receive-mail", "Q6"], server.env, message);
			expect(run.stdout).toMatch(
				new RegExp(`^receive-mail: listed as fax_\\w{12}, not processable: ${reason}\n$`),
			);
			expect((await listedFrom(sender)).map((fax) => [fax.from, fax.page_count])).toEqual([
				["m***@s***.example", null],
			]);
		}
		const nested = (depth: number): string =>
			depth === 0
				? 'Content-Type: application/pdf; name="scan.pdf"\r\n\r\n%PDF-1.4'
				: `Content-Type: multipart/mixed; boundary="d${depth}"\r\n\r\n--d${depth}\r\n${nested(depth - 1)}\r\n--d${depth}--`;
		const deep = emailWith("mail-8@scan.test.example", { type: "", bytes: new Uint8Array() }, nested(50));
		expect((await runFax(["receive-mail", "Q8"], server.env, deep)).stdout).toEndWith(
			"not processable: email nests MIME parts more than 32 deep\n",
		);
	});

	test("without a Message-ID the queue id names the message; without either each hand-over is listed", async () => {
		const relayedAt = Math.floor(Date.now() / 1000) - 60;
		const message = await relayedEmail({ sender: "mail-2@scan.test.example", messageId: null, relayedAt });
		expect((await runFax(["receive-mail", "QA"], server.env, message)).code).toBe(0);
		expect((await runFax(["receive-mail", "QA"], server.env, message)).stdout).toStartWith(
			"receive-mail: already listed as",
		);
		expect(await listedFrom("mail-2@scan.test.example")).toHaveLength(1);
		expect((await runFax(["receive-mail", "QB"], server.env, message)).code).toBe(0);
		expect((await runFax(["receive-mail"], server.env, message)).code).toBe(0);
		expect((await runFax(["receive-mail"], server.env, message)).code).toBe(0);
		expect(await listedFrom("mail-2@scan.test.example")).toHaveLength(4);
	});

	test("a database that cannot be opened: exit 75, one line, nothing listed", async () => {
		const message = await relayedEmail({
			sender: "mail-3@scan.test.example",
			messageId: "<m3@test>",
			relayedAt: 0,
		});
		const env = { ...server.env, DATABASE_PATH: "/proc/no-such-place/faxes.sqlite" };
		const failed = await runFax(["receive-mail", "Q3"], env, message);
		expect(failed.code).toBe(75);
		expect(failed.stdout).toBe("");
		expect(failed.stderr).toMatch(
			/^receive-mail: not listed now, the mail server will retry: cannot open the database at \/proc\/no-such-place\/faxes\.sqlite \(DATABASE_PATH\): .+\n$/,
		);
	});
});

describe("fax receive-hylafax", () => {
	let recvq: string;
	beforeAll(() => {
		recvq = join(makeTempDir(), "recvq");
		mkdirSync(recvq);
	});

	/** A fax as faxgetty leaves it: the TSI as the first line of its ImageDescription. */
	function queueFax(name: string, tsi: string, endOfCall: number): string {
		const path = join(recvq, name);
		copyFileSync(fixturePath("ingest/fax-g3-2d.tif"), path);
		const tagged = Bun.spawnSync([
			"tiffset",
			"-s",
			"270",
			`${tsi}\n15550100\nTest Sender\n<NONE>\n5550000`,
			path,
		]);
		expect(tagged.exitCode).toBe(0);
		utimesSync(path, endOfCall, endOfCall);
		return path;
	}

	/** fax receive-hylafax as hand-over runs it: the queue file on standard input. */
	function handOver(path: string) {
		return runCommand(
			["sh", "-c", 'exec "$0" bin/fax.ts receive-hylafax "$(basename "$1")" < "$1"', process.execPath, path],
			{ cwd: join(import.meta.dir, "../.."), env: server.env },
		);
	}

	test("a queue file is listed with its TSI, at its last write; handed over again, it lists nothing new", async () => {
		const endOfCall = Math.floor(Date.now() / 1000) - 600;
		const path = queueFax("fax000000001.tif", "+1 555 0100", endOfCall);
		const first = await handOver(path);
		expect(first.stderr).toBe("");
		expect(first.stdout).toMatch(/^fax000000001\.tif: listed as fax_[A-Za-z0-9]{12} \(2 pages\)\n$/);
		const faxes = await listedFrom("+1 555 0100");
		expect(faxes.map((fax) => [fax.from, fax.received_at])).toEqual([["+*****100", iso(endOfCall)]]);
		const again = await handOver(path);
		expect(again.stdout).toBe(`fax000000001.tif: already listed as ${faxes[0]?.slug}\n`);
		expect(await listedFrom("+1 555 0100")).toEqual(faxes);
	});

	test("standard input that is not the queue file itself: exit 1, one line, nothing listed", async () => {
		const path = queueFax("fax000000002.tif", "5550102", Math.floor(Date.now() / 1000) - 300);
		const piped = await runCommand(
			[
				"sh",
				"-c",
				'cat "$1" | exec "$0" bin/fax.ts receive-hylafax fax000000002.tif',
				process.execPath,
				path,
			],
			{ cwd: join(import.meta.dir, "../.."), env: server.env },
		);
		expect(piped.code).toBe(1);
		expect(piped.stderr).toBe(
			"fax000000002.tif: not listed yet, kept in the receive queue for the next sweep: standard input is not the queue file itself\n",
		);
		expect(await listedFrom("5550102")).toEqual([]);
		expect((await runFax(["receive-hylafax", "../etc/passwd"], server.env)).code).toBe(2);
	});

	test("the same name with another last write is another fax: HylaFAX's sequence numbers wrap", async () => {
		const path = queueFax("fax000000005.tif", "5550105", Math.floor(Date.now() / 1000) - 200);
		expect((await handOver(path)).code).toBe(0);
		queueFax("fax000000005.tif", "5550105", Math.floor(Date.now() / 1000) - 100);
		expect((await handOver(path)).code).toBe(0);
		expect(await listedFrom("5550105")).toHaveLength(2);
	});
});

test("under a receiver's umask 077, everything the CLI creates is its group's to read and write", async () => {
	const dir = join(makeTempDir(), "shared");
	const env = {
		...server.env,
		DATABASE_PATH: join(dir, "db", "faxes.sqlite"),
		STORAGE_DIR: join(dir, "storage"),
	};
	const ingest = await runCommand(
		[
			"sh",
			"-c",
			`umask 077 && exec "$0" bin/fax.ts ingest "$1" --source phone`,
			process.execPath,
			fixturePath("ingest/fax-g3-2d.tif"),
		],
		{ cwd: join(import.meta.dir, "../.."), env },
	);
	expect(ingest.code).toBe(0);
	const modes = (path: string): string[] =>
		readdirSync(path, { recursive: true, withFileTypes: false })
			.map(String)
			.map((name) => `${name} ${(statSync(join(path, name)).mode & 0o7777).toString(8)}`)
			.sort();
	const slug = /fax_\w{12}/.exec(ingest.stdout)?.[0] ?? "";
	expect(modes(dir).filter((line) => !/faxes\.sqlite-(wal|shm)/.test(line))).toEqual([
		"db 2770",
		"db/faxes.sqlite 660",
		"storage 2770",
		"storage/faxes 2770",
		`storage/faxes/${slug}-thumb.jpg 660`,
		`storage/faxes/${slug}.pdf 660`,
	]);
});

test("two hand-overs of one receipt key at once: one fax is listed, both name it, and the loser's files are gone", async () => {
	const dir = makeTempDir();
	const env = { ...server.env, STORAGE_DIR: join(dir, "storage") };
	const args = ["ingest", fixturePath("ingest/fax-g3-2d.tif"), "--source", "phone", "--sender", "5550199"];
	const runs = await Promise.all(
		Array.from({ length: 4 }, () =>
			runFax([...args, "--receipt-key", "race:1"], { ...env, DATABASE_PATH: server.databasePath }),
		),
	);
	expect(runs.map((run) => run.code)).toEqual([0, 0, 0, 0]);
	const slugs = new Set(runs.map((run) => run.stdout.trim()));
	expect(slugs.size).toBe(1);
	expect((await listedFrom("5550199")).map((fax) => fax.slug)).toEqual([...slugs]);
	expect(runs.filter((run) => run.stderr.startsWith("ingest: already listed as")).length).toBe(3);
	expect(readdirSync(join(dir, "storage", "faxes")).sort()).toEqual([
		`${[...slugs][0]}-thumb.jpg`,
		`${[...slugs][0]}.pdf`,
	]);
});

// `fax receive-hylafax` as deploy/receivers/hylafax/hand-over runs it, with
// the session logs and received files of real calls (fixtures/hylafax/): a
// fax with its session on descriptor 3, and calls that left no file, each
// listed once, and a call no fax machine answered not at all.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir, startTestServer, type TestServer } from "../../testkit/server.ts";

const ROOT = join(import.meta.dir, "../..");
const fixture = (call: string, name: string) => join(ROOT, "fixtures/hylafax", call, name);

interface Fax {
	slug: string;
	from: string | null;
	received_at: string;
	page_count: number | null;
	file_size: number | null;
	pdf_url: string | null;
	thumbnail_url: string | null;
}

let server: TestServer;
let dir: string;
beforeAll(async () => {
	server = await startTestServer();
	dir = makeTempDir();
});
afterAll(() => server.stop());

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");

/** A copy of a fixture in the spool, last written at `endOfCall`. */
function spooled(call: string, name: string, as: string, endOfCall: number): string {
	const path = join(dir, as);
	copyFileSync(fixture(call, name), path);
	utimesSync(path, endOfCall, endOfCall);
	return path;
}

/** hand-over's command: NAME and the reason, standard input `input`, descriptor 3 `log` when given. */
function handOver(name: string, reason: string, input: string, log?: string) {
	const fd3 = log === undefined ? "" : ' 3< "$3"';
	return runCommand(
		[
			"sh",
			"-c",
			`exec "$0" bin/fax.ts receive-hylafax "$1" "--reason=$2" < "$4"${fd3}`,
			process.execPath,
			name,
			reason,
			log ?? "",
			input,
		],
		{ cwd: ROOT, env: server.env },
	);
}

async function listed(): Promise<Fax[]> {
	const answer = await server.request("/api/faxes?limit=100&since=2000-01-01T00:00:00Z");
	return (await answer.json()) as Fax[];
}

const page = async (slug: string) => (await server.request(`/faxtest/${slug}`)).text();

describe("fax receive-hylafax with HylaFAX's session log", () => {
	test("a clean call: listed with its pages; its page shows the verdict, the timeline and the session log", async () => {
		const endOfCall = Math.floor(Date.now() / 1000) - 900;
		const tif = spooled("clean", "received.tif", "fax000000001.tif", endOfCall);
		const log = spooled("clean", "receiver.log", "c000000002", endOfCall);
		const result = await handOver("fax000000001.tif", "", tif, log);
		expect(result.stdout).toMatch(/^fax000000001\.tif: listed as fax_\w{12} \(2 pages\)\n$/);
		const [fax] = await listed();
		expect(fax).toMatchObject({ from: "IAXmodem", page_count: 2, received_at: iso(endOfCall) });
		const html = await page(fax?.slug ?? "");
		expect(html).toContain('data-rule="all-good"');
		expect(html).toContain("All good: 2 pages arrived complete.");
		expect(html).toContain(
			"<li><time>10:28:39</time> Training at 14,400 bit/s (V.17): succeeded (check signal: 2748 bytes, 1% non-zero, 2700 zero-run)</li>",
		);
		expect(html).toContain(
			"<li><time>10:28:44</time> Page 1 came whole in 0:00:11; 3 ECM frames, 0 partial page requests (PPR); 400 lines, 0 bad (0 in a row); your machine said MPS (more pages follow); we answered MCF (page good)</li>",
		);
		expect(html).toContain(
			"<li><time>10:28:51</time> Your machine hung up normally after the last page.</li>",
		);
		expect(html).toContain("10:28:39 RECV training at v.17 14400 bit/s\n");
		expect(html).not.toContain("15550100");
		// The same file again, as the sweep or a second FaxRcvdCmd hands it over: nothing new.
		expect((await handOver("fax000000001.tif", "", tif, log)).stdout).toBe(
			`fax000000001.tif: already listed as ${fax?.slug}\n`,
		);
	});

	test("descriptor 3 open on a file that is no session log (as libfaketime's shared memory is under test:any-date): listed without a call, never a call read from it", async () => {
		const endOfCall = Math.floor(Date.now() / 1000) - 800;
		const tif = spooled("clean", "received.tif", "fax000000077.tif", endOfCall);
		const notALog = spooled("clean", "xferfaxlog", "xferfaxlog", endOfCall);
		expect((await handOver("fax000000077.tif", "", tif, notALog)).stdout).toMatch(
			/^fax000000077\.tif: listed as fax_\w{12} \(2 pages\)\n$/,
		);
		const fax = (await listed()).find((entry) => entry.received_at === iso(endOfCall));
		const html = await page(fax?.slug ?? "");
		expect(html).toContain('data-rule="call-not-known"');
		expect(html).toContain("<dt>Pages</dt><dd>2</dd>");
		expect(html).not.toContain('<ol id="timeline">');
	});

	test("a call cut after training (FaxRcvdCmd ran with the reason, HylaFAX deleted the 0-page file): listed once as not processable, with the TSI and the reason", async () => {
		const before = await listed();
		const endOfCall = Math.floor(Date.now() / 1000) - 600;
		const log = spooled("killtrain", "receiver.log", "c000000006", endOfCall);
		const reason = "Failed to properly detect high-speed data carrier.";
		const result = await handOver("c000000006", reason, log);
		expect(result.stdout).toMatch(
			/^c000000006: listed as fax_\w{12}, not processable: the call ended before its first page\n$/,
		);
		const faxes = await listed();
		expect(faxes).toHaveLength(before.length + 1);
		const fax = faxes.find((entry) => !before.some((old) => old.slug === entry.slug));
		expect(fax).toMatchObject({
			from: "IAXmodem",
			received_at: iso(endOfCall),
			page_count: null,
			file_size: null,
			pdf_url: null,
			thumbnail_url: null,
		});
		const html = await page(fax?.slug ?? "");
		expect(html).toContain('data-rule="ended-before-first-page"');
		const words =
			"Our receiver could not pick up your machine&#39;s fast page signal, so the page or its speed test never came through.";
		expect(html).toContain(
			`<p>The machines agreed how to send, then the call ended before page 1 arrived. ${words}</p>`,
		);
		expect(html).toContain("<p>No page arrived, so there is no PDF and no image of this call.</p>");
		expect(html).toContain(
			`<li><time>10:31:22</time> The line ended the call. ${words} <code class="hylafax">HylaFAX: ${reason}</code></li>`,
		);
		// The sweep, without the reason, or a second FaxRcvdCmd: the same call, nothing new.
		expect((await handOver("c000000006", "", log)).stdout).toBe(
			`c000000006: already listed as ${fax?.slug}\n`,
		);
		expect(await listed()).toHaveLength(before.length + 1);
	});

	test("a call no fax machine answered (silence): not listed, exit 0, one line", async () => {
		const before = await listed();
		const log = spooled("killanswer", "receiver.log", "c000000008", Math.floor(Date.now() / 1000) - 300);
		const result = await handOver("c000000008", "", log);
		expect([result.code, result.stdout]).toEqual([
			0,
			"c000000008: no fax machine answered (no fax signal, a voice call or silence): not listed\n",
		]);
		expect(await listed()).toEqual(before);
	});
});

/**
 * `bun run bench:lighthouse`: Lighthouse (npm `lighthouse`, Debian's
 * Chromium) on the pages a person meets, served by the real server with the
 * demo data: the live list, a fax's page with its report, and /docs, each
 * with the mobile preset and the desktop one. Prints the four category
 * scores of each run and the audits that cost points; exits 1 when
 * accessibility or best practices is under 100, SEO under 90, or the mobile
 * performance of /docs under 90. Performance follows the machine's load
 * (Lighthouse scales what it observes by 4 for a phone), so /docs on mobile
 * is run LIGHTHOUSE_RUNS times and judged by its median, as Lighthouse's own
 * guidance on variability advises; each line shows Lighthouse's
 * benchmarkIndex and the load average beside it. Not in CI: about 8 minutes.
 * Options (environment): CHROMIUM_PATH (/usr/bin/chromium), LIGHTHOUSE_PAGES
 * (comma-separated paths, the three above by default), LIGHTHOUSE_RUNS (3).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../testkit/ports.ts";
import { startServerProcess } from "../testkit/server-process.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const LIGHTHOUSE = join(import.meta.dir, "../node_modules/lighthouse/cli/index.js");
// A demo fax with a thumbnail and a transmission report (lib/demo).
const PAGES = (process.env.LIGHTHOUSE_PAGES ?? "/faxtest,/faxtest/fax_DemoPhone01,/docs").split(",");
const PRESETS = ["mobile", "desktop"] as const;
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
// As tests start Chromium: as root, without its sandbox.
const CHROME_FLAGS =
	"--headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking";

type Category = (typeof CATEGORIES)[number];
interface Audit {
	title: string;
	score: number | null;
	scoreDisplayMode: string;
	displayValue?: string;
}
interface Report {
	categories: Record<Category, { score: number; auditRefs: { id: string; weight: number }[] }>;
	audits: Record<string, Audit>;
	environment: { benchmarkIndex: number };
}
interface Run {
	path: string;
	preset: (typeof PRESETS)[number];
	scores: Record<Category, number>;
	lost: string[];
}

/** One Lighthouse run in a fresh Chromium; its JSON report. */
async function lighthouse(url: string, preset: Run["preset"]): Promise<Report> {
	const args = [url, "--quiet", "--output=json", "--output-path=stdout", `--chrome-flags=${CHROME_FLAGS}`];
	if (preset === "desktop") args.push("--preset=desktop");
	const child = Bun.spawn(["node", LIGHTHOUSE, ...args], {
		env: { ...process.env, CHROME_PATH: CHROMIUM },
		stdout: "pipe",
		stderr: "pipe",
	});
	const [out, err, code] = await Promise.all([
		new Response(child.stdout).text(),
		new Response(child.stderr).text(),
		child.exited,
	]);
	if (code !== 0) throw new Error(`lighthouse ${url} (${preset}) exited ${code}: ${err}`);
	return JSON.parse(out) as Report;
}

/** The audits of a category that cost it points, weighted ones first. */
function lostAudits(report: Report, category: Category): string[] {
	return report.categories[category].auditRefs
		.filter((ref) => ref.weight > 0)
		.map((ref) => ({ id: ref.id, audit: report.audits[ref.id] }))
		.filter(({ audit }) => audit !== undefined && audit.score !== null && audit.score < 1)
		.map(({ id, audit }) => `${category}: ${id} ${audit?.score} ${audit?.displayValue ?? ""}`.trim());
}

/** The run of median performance among `runs` of one page and preset. */
function medianRun(runs: Run[]): Run {
	const sorted = [...runs].sort((a, b) => a.scores.performance - b.scores.performance);
	return sorted[Math.floor(sorted.length / 2)] ?? (runs[0] as Run);
}

/** Runs one page with one preset, prints its scores, and returns them. */
async function measure(path: string, preset: Run["preset"]): Promise<Run> {
	const report = await lighthouse(`${base}${path}`, preset);
	const scores = Object.fromEntries(
		CATEGORIES.map((category) => [category, Math.round(report.categories[category].score * 100)]),
	) as Record<Category, number>;
	const lost = CATEGORIES.flatMap((category) => lostAudits(report, category));
	const machine = `benchmarkIndex ${Math.round(report.environment.benchmarkIndex)}, load ${loadavg()[0]?.toFixed(1)}`;
	console.log(
		`${path} | ${preset} | ${CATEGORIES.map((category) => scores[category]).join(" | ")} | ${machine}`,
	);
	for (const line of lost) console.log(`    ${line}`);
	return { path, preset, scores, lost };
}

function failures(run: Run): string[] {
	const name = `${run.path} (${run.preset})`;
	const found: string[] = [];
	if (run.scores.accessibility < 100) found.push(`${name}: accessibility ${run.scores.accessibility} < 100`);
	if (run.scores["best-practices"] < 100)
		found.push(`${name}: best practices ${run.scores["best-practices"]} < 100`);
	if (run.scores.seo < 90) found.push(`${name}: SEO ${run.scores.seo} < 90`);
	if (run.path === "/docs" && run.preset === "mobile" && run.scores.performance < 90)
		found.push(`${name}: performance ${run.scores.performance} < 90`);
	return found;
}

const dir = mkdtempSync(join(tmpdir(), "testfax-lighthouse-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = await startServerProcess({
	PORT: String(port),
	DATABASE_PATH: join(dir, "faxes.sqlite"),
	STORAGE_DIR: join(dir, "storage"),
	CDN_BASE_URL: `${base}/cdn`,
	SITE_BASE_URL: base,
	SEED_DEMO: "1",
	PURGE_INTERVAL: "0",
});
const runs: Run[] = [];
try {
	console.log(
		`Lighthouse ${(await Bun.file(join(LIGHTHOUSE, "../../package.json")).json()).version}, ${base}`,
	);
	console.log("page | preset | performance | accessibility | best practices | SEO | machine");
	for (const path of PAGES) {
		for (const preset of PRESETS) {
			const repeat = path === "/docs" && preset === "mobile" ? RUNS : 1;
			const these: Run[] = [];
			for (let round = 0; round < repeat; round++) these.push(await measure(path, preset));
			const run = medianRun(these);
			if (repeat > 1) console.log(`    median performance of ${repeat} runs: ${run.scores.performance}`);
			runs.push(run);
		}
	}
} finally {
	server.child.kill("SIGTERM");
	await server.child.exited;
	rmSync(dir, { recursive: true, force: true });
}
const failed = runs.flatMap(failures);
for (const line of failed) console.log(`FAIL ${line}`);
process.exit(failed.length === 0 ? 0 : 1);

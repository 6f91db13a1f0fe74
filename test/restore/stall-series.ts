// The stall series a replica-faults run captured, put to deploy/prometheus's
// rules with `promtool test rules`, as a Prometheus scraping every 15 s would
// have seen them.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export type Fault = "vanishes" | "refuses writes" | "hangs" | "healthy";

export interface StallSample {
	at: number;
	stall: number;
	restarts: number;
	/** litestream_sync_error_count of the Litestream process then running. */
	errors: number;
}

export interface CapturedRun {
	fault: Fault;
	began: number;
	samples: StallSample[];
}

const STEP_MS = 15_000;
const RULES = join(import.meta.dir, "../../deploy/prometheus/alerts.yml");
/** The bound: a real stall pages within 2 minutes of its start. */
const PAGE_WITHIN_MS = 120_000;

/** What a scrape every 15 s from the first sample would have read: the newest sample at each step. */
export function scrapedEvery15s(samples: StallSample[]): number[] {
	const first = samples[0]?.at ?? 0;
	const last = samples.at(-1)?.at ?? 0;
	const values: number[] = [];
	for (let t = first; t <= last; t += STEP_MS) {
		values.push(samples.findLast((s) => s.at <= t)?.stall ?? 0);
	}
	return values;
}

const LABELS = { job: "litestream", instance: "fax-host:9092", db: "/var/lib/testfax-api/faxes.sqlite" };

function testFile(values: number[], evalSeconds: number[], firing: boolean): string {
	const series = `testfax_replication_stall_seconds{job="${LABELS.job}", instance="${LABELS.instance}", db="${LABELS.db}"}`;
	const expected = firing
		? [
				{
					exp_labels: { severity: "page", ...LABELS },
					exp_annotations: {
						summary: `The replica of ${LABELS.db} misses what the database held over 20 s ago`,
					},
				},
			]
		: [];
	return JSON.stringify({
		rule_files: [RULES],
		evaluation_interval: "15s",
		tests: [
			{
				interval: "15s",
				input_series: [{ series, values: values.map((v) => v.toFixed(1)).join(" ") }],
				alert_rule_test: evalSeconds.map((s) => ({
					eval_time: `${s}s`,
					alertname: "ReplicationBehind",
					exp_alerts: expected,
				})),
			},
		],
	});
}

function promtoolPasses(file: string, content: string): boolean {
	writeFileSync(file, content);
	return (
		Bun.spawnSync(["promtool", "test", "rules", file], { stdout: "ignore", stderr: "ignore" }).exitCode === 0
	);
}

/** "fires" when the rule fires at some evaluation within 2 minutes of the fault's start; "silent" when at none. */
function verdict(run: CapturedRun, dir: string): "fires" | "silent" | "late" {
	const values = scrapedEvery15s(run.samples);
	const start = run.samples[0]?.at ?? 0;
	const steps = values.map((_, i) => i * 15);
	const file = join(dir, `${run.fault.replace(" ", "-")}.json`);
	if (promtoolPasses(file, testFile(values, steps, false))) return "silent";
	const from = Math.ceil((run.began - start) / STEP_MS) * 15;
	for (let s = from; s <= from + PAGE_WITHIN_MS / 1000; s += 15) {
		if (promtoolPasses(file, testFile(values, [s], true))) return "fires";
	}
	return "late";
}

export async function promtoolVerdicts(runs: CapturedRun[], dir: string): Promise<Record<string, string>> {
	Bun.spawnSync(["mkdir", "-p", dir]);
	const verdicts: Record<string, string> = {};
	for (const run of runs) {
		console.log(
			`${run.fault} stall every 15 s: ${scrapedEvery15s(run.samples)
				.map((v) => v.toFixed(0))
				.join(" ")}`,
		);
		verdicts[run.fault] = verdict(run, dir);
	}
	return verdicts;
}

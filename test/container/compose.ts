/**
 * deploy/docker-compose.yml up for real under podman-compose 1.0.3, as
 * docs/operations/containers.md ("Container") tells an operator to run it: two instances
 * of the image behind nginx, and Redis. Registered by container.ts, which
 * builds the image first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { IMAGE } from "../../testkit/container-image.ts";
import { containerIp, exitCode, get, shutdownLine, timedCommand, until } from "../../testkit/containers.ts";
import type { CommandOptions, Podman } from "../../testkit/podman.ts";
import { freePort } from "../../testkit/ports.ts";
import { rawExchange } from "../../testkit/raw-http.ts";
import { heldOn } from "../../testkit/server.ts";

const DEPLOY = join(import.meta.dir, "../../deploy");
const FAX = join(import.meta.dir, "../../fixtures/ingest/fax-g3-2d.tif");
const PROJECT = "testfax";
const EDGE = "testfax_edge";

interface Instance {
	name: string;
	admin: string;
}

interface Held {
	status: number;
	body: string;
}

const state: { podman?: () => Podman; port: number; proxy: string; instances: Instance[] } = {
	port: 0,
	proxy: "",
	instances: [],
};

function podman(): Podman {
	if (state.podman === undefined) throw new Error("composeTests was not given podman");
	return state.podman();
}

/** `podman-compose -p testfax ARGS` in deploy/, as the docs say; how long it took. */
function compose(args: string[], options: CommandOptions = {}): Promise<number> {
	return timedCommand(podman(), ["podman-compose", "-p", PROJECT, ...args], {
		cwd: DEPLOY,
		env: { TESTFAX_PORT: String(state.port) },
		...options,
	});
}

async function up(): Promise<void> {
	state.port = await freePort();
	// podman-compose ignores the subnet: the network is made with it first, as the docs say.
	await podman().ok(["network", "create", "--subnet", "172.30.0.0/24", EDGE]);
	const upMs = await compose(["up", "-d"]);
	state.proxy = `http://127.0.0.1:${state.port}`;
	for (const service of ["api1", "api2"]) {
		const name = `${PROJECT}_${service}_1`;
		state.instances.push({ name, admin: `http://${await containerIp(podman(), name, EDGE)}:3001` });
	}
	const proxyAnswers = async () => (await get(`${state.proxy}/api/faxes`).catch(() => null))?.status === 200;
	await until(proxyAnswers, "nginx answering");
	console.log(`podman-compose up -d: ${upMs.toFixed(0)} ms`);
}

/**
 * The counts in Redis forgotten, so that each scenario starts with a full
 * window. An instance remembers a refused key itself until its window ends
 * (lib/rate-limit/refused-keys.ts), so the scenario that uses up the count
 * comes last.
 */
function freshCounts(): Promise<string> {
	return podman().ok(["exec", `${PROJECT}_redis_1`, "redis-cli", "FLUSHALL"]);
}

function held(): Promise<number[]> {
	return Promise.all(state.instances.map((instance) => heldOn(instance.admin)));
}

/** Polls held through nginx until each instance holds at least one; the answers to come. */
async function holdOnBoth(path: string, headers: Record<string, string>, signal: AbortSignal) {
	const answers: Promise<Held>[] = [];
	while ((await held()).some((count) => count === 0)) {
		if (answers.length === 10) throw new Error(`10 polls held, not on both instances: ${await held()}`);
		answers.push(
			get(`${state.proxy}${path}`, headers, signal).then(async (answer) => ({
				status: answer.status,
				body: await answer.text(),
			})),
		);
		const total = answers.length;
		await until(async () => (await held()).reduce((sum, count) => sum + count, 0) === total, "held");
	}
	return answers;
}

async function unknownMethods(): Promise<void> {
	for (const line of ["FOO /api/faxes", "get /api/faxes"]) {
		const answer = await rawExchange(state.port, `${line} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
		expect([answer.status, answer.headers.allow, answer.headers["cache-control"]]).toEqual([
			405,
			"GET, HEAD",
			"no-store, private",
		]);
		expect(JSON.parse(answer.body)).toEqual({ message: "The method is not allowed. Use GET or HEAD." });
	}
}

async function ingestWakesBoth(): Promise<void> {
	await freshCounts();
	const since = new Date(Date.now() - 1000).toISOString().slice(0, 19);
	const path = `/api/faxes?since=${since}Z&from=%2B15550104343&limit=100&wait=30`;
	const answers = await holdOnBoth(path, {}, new AbortController().signal);
	const ingest = ["bin/fax.ts", "ingest", "-", "--source", "phone", "--sender", "+1 555 010 4343"];
	const out = await podman().command(
		["podman-compose", "-p", PROJECT, "exec", "-T", "api2", "bun", ...ingest],
		{
			cwd: DEPLOY,
			env: { TESTFAX_PORT: String(state.port) },
			stdin: Bun.file(FAX),
		},
	);
	expect(out.code).toBe(0);
	// podman-compose prints its own lines around the command's output.
	const slug = /\bfax_[A-Za-z0-9]{12}\b/.exec(out.stdout)?.[0];
	expect(slug).toBeString();
	const woken = await Promise.all(answers);
	console.log(`${woken.length} polls held on both instances, all woken by the ingest`);
	expect(woken.map((answer) => [answer.status, JSON.parse(answer.body)[0]?.slug])).toEqual(
		Array(woken.length).fill([200, slug]),
	);
}

/** GETs from a container of the image on `network`, each with a forged X-Forwarded-For; [status, remaining] each. */
async function clientFetch(network: string, url: string, forwardedFor: string[]) {
	const script = `const out = []; for (const f of ${JSON.stringify(forwardedFor)}) { const r = await fetch(${JSON.stringify(url)}, { headers: { "user-agent": "container-test", "x-forwarded-for": f } }); out.push([r.status, r.headers.get("x-ratelimit-remaining")]); } console.log(JSON.stringify(out));`;
	const output = await podman().ok(["run", "--rm", "--network", network, IMAGE, "bun", "-e", script]);
	return JSON.parse(output) as [number, string][];
}

async function forwardedForFromNginxOnly(): Promise<void> {
	await freshCounts();
	const remaining = async (headers: Record<string, string> = {}) =>
		(await get(`${state.proxy}/api/faxes`, headers)).headers.get("x-ratelimit-remaining");
	// Through nginx, a forged header changes nothing: the same count goes on.
	expect([await remaining(), await remaining({ "x-forwarded-for": "203.0.113.50" })]).toEqual(["59", "58"]);
	// Another client through nginx is counted as itself, not as nginx.
	expect(await clientFetch("testfax_edge", "http://proxy/api/faxes", ["198.51.100.1"])).toEqual([
		[200, "59"],
	]);
	// Straight to an instance from outside the edge network, the header is ignored: one key.
	const direct = await clientFetch("testfax_backend", "http://api1:3000/api/faxes", [
		"198.51.100.2",
		"198.51.100.3",
	]);
	expect(direct).toEqual([
		[200, "59"],
		[200, "58"],
	]);
}

async function stopMidWait(): Promise<void> {
	await freshCounts();
	const etag = (await get(`${state.proxy}/api/faxes?limit=100`)).headers.get("etag") ?? "";
	const stop = new AbortController();
	const answers = await holdOnBoth("/api/faxes?limit=100&wait=30", { "if-none-match": etag }, stop.signal);
	const [stopping, staying] = state.instances as [Instance, Instance];
	const stayingHeld = await heldOn(staying.admin);
	// As an operator stops one service: podman-compose passes no timeout, podman gives 10 s.
	const stopMs = await compose(["stop", "api1"]);
	const settled = await Promise.all(
		answers.map((answer) => Promise.race([answer, Bun.sleep(300).then(() => null)])),
	);
	const answered = settled.filter((answer) => answer !== null);
	console.log(
		`podman-compose stop api1: ${stopMs.toFixed(0)} ms; ${answered.length} of ${answers.length} answered`,
	);
	expect(answered.length).toBe(answers.length - stayingHeld);
	expect(answered.map((answer) => answer.status)).toEqual(Array(answered.length).fill(304));
	expect(await heldOn(staying.admin)).toBe(stayingHeld);
	expect(await exitCode(podman(), stopping.name)).toBe(0);
	expect(await shutdownLine(podman(), stopping.name)).toMatchObject({ signal: "SIGTERM", cut: 0 });
	expect(stopMs).toBeLessThan(5000);
	stop.abort();
	await Promise.allSettled(answers);
	await startAgain(stopping);
}

/** Starts a stopped instance again and has nginx reach it. */
async function startAgain(instance: Instance): Promise<void> {
	await compose(["start", "api1"]);
	const address = instance.admin;
	instance.admin = `http://${await containerIp(podman(), instance.name, EDGE)}:3001`;
	console.log(`api1 started again: admin ${address} before, ${instance.admin} now`);
	const ready = async () => (await fetch(`${instance.admin}/readyz`).catch(() => null))?.status === 200;
	await until(ready, "api1 ready");
	// nginx resolved the names when it started: a new address needs a reload (docs/operations/containers.md).
	await compose(["exec", "-T", "proxy", "nginx", "-s", "reload"]);
	// nginx skips a failed instance for fail_timeout (1 s).
	await Bun.sleep(1500);
}

/** Answers the instance has given on its public listener (`testfax_http_requests_total`). */
async function answeredBy(adminBase: string): Promise<number> {
	const metrics = await fetch(`${adminBase}/metrics`).then((answer) => answer.text());
	let total = 0;
	for (const match of metrics.matchAll(/\ntestfax_http_requests_total\{[^}]*\} (\d+)/g))
		total += Number(match[1]);
	return total;
}

/** The rate-limit backend an instance's /readyz names: "redis" once it counts in Redis. */
async function rateLimitBackend(instance: Instance): Promise<string | undefined> {
	const answer = await fetch(`${instance.admin}/readyz`).catch(() => null);
	return ((await answer?.json().catch(() => null)) as { rate_limit?: string } | null)?.rate_limit;
}

async function countShared(): Promise<void> {
	// An instance started again counts in its own memory until it reaches Redis:
	// a burst then would see two counts (62 answers of 200 once, under load).
	for (const instance of state.instances) {
		await until(
			async () => (await rateLimitBackend(instance)) === "redis",
			`${instance.name} counting in Redis`,
		);
	}
	await freshCounts();
	const before = await Promise.all(state.instances.map((instance) => answeredBy(instance.admin)));
	const answers: { status: number; remaining: string | null }[] = [];
	for (let i = 0; i < 62; i++) {
		const answer = await get(`${state.proxy}/api/faxes`);
		await answer.arrayBuffer();
		answers.push({ status: answer.status, remaining: answer.headers.get("x-ratelimit-remaining") });
	}
	expect(answers.map((answer) => answer.status)).toEqual([...Array(60).fill(200), 429, 429]);
	expect(answers.map((answer) => answer.remaining)).toEqual([
		...Array.from({ length: 60 }, (_, i) => String(59 - i)),
		"0",
		"0",
	]);
	const after = await Promise.all(state.instances.map((instance) => answeredBy(instance.admin)));
	const served = after.map((count, i) => count - (before[i] ?? 0));
	console.log(`answered by api1 and api2: ${served.join(" and ")}`);
	expect(served.every((count) => count > 0)).toBe(true);
}

export function composeTests(podmanOf: () => Podman): void {
	state.podman = podmanOf;
	describe("deploy/docker-compose.yml under podman-compose", () => {
		beforeAll(up, 120_000);
		afterAll(async () => {
			await compose(["down", "-t", "15", "-v"]).catch((error) => console.error(String(error)));
		}, 120_000);
		test("nginx answers FOO and a lower-case get with the API's 405", unknownMethods);
		test("a fax ingested by exec on one instance wakes the polls held on both", ingestWakesBoth);
		test("X-Forwarded-For counts from nginx only", forwardedForFromNginxOnly);
		test(
			"an instance stopped mid-wait answers its own at once and exits 0; the other's stay held",
			stopMidWait,
		);
		test("the count is shared: 60 through nginx, then 429, whichever instance answers", countShared);
	});
}

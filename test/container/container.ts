/**
 * `npm run test:container`: the project's Dockerfile, unchanged, built by
 * podman on local stand-ins of its base images
 * (deploy/container/stand-in-images.sh) in a throwaway store, then run as an
 * operator runs it; then deploy/docker-compose.yml brought up by
 * podman-compose. docs/operations/containers.md ("Container") says what this proves.
 * Needs root, podman and podman-compose.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkoutWithoutSharpBinary } from "../../testkit/broken-pipeline.ts";
import { buildProjectImage, caBundle, IMAGE } from "../../testkit/container-image.ts";
import {
	containerIp,
	exitCode,
	get,
	shutdownLine,
	timedCommand,
	until,
	untilAnswers,
} from "../../testkit/containers.ts";
import { type Podman, startPodman } from "../../testkit/podman.ts";
import { ALL_RUNNING } from "../../testkit/receivers.ts";
import { heldOn } from "../../testkit/server.ts";
import { composeTests } from "./compose.ts";

// Outside the default test run, so bunfig.toml's timeout does not reach it.
setDefaultTimeout(60_000);

const ROOT = join(import.meta.dir, "../..");
const FAX = join(ROOT, "fixtures/ingest/fax-g3-2d.tif");
const EMAIL = join(ROOT, "fixtures/ingest/scan-to-email.eml");
const VOLUME = "testfax-container-test-data";
const BOOKWORM = "docker.io/library/debian:bookworm-slim";
// Debian 12's own Node, whichever 18.x its updates bring, refused by the preinstall check in one line.
const DEBIAN_NODE_REFUSED =
	/^testfax-api needs Node 20\.19 or later, this is 18\.\d+\.\d+: see docs\/operations\/instance\.md, "Node on Debian 12"$/m;
const podmanRef: { current?: Podman } = {};
let projectLayers = 0;

beforeAll(async () => {
	podmanRef.current = await startPodman();
	projectLayers = await buildProjectImage(podmanRef.current);
}, 900_000);

afterAll(async () => {
	await podmanRef.current?.remove();
}, 120_000);

function podman(): Podman {
	if (podmanRef.current === undefined) throw new Error("podman did not start");
	return podmanRef.current;
}

/** Starts a container of the image on the volume; its public and admin base URLs. */
async function runImage(name: string, options: string[] = [], volume = VOLUME) {
	await podman().ok(["run", "-d", "--name", name, "-v", `${volume}:/app/data`, ...options, IMAGE]);
	const ip = await containerIp(podman(), name);
	return { name, base: `http://${ip}:3000`, admin: `http://${ip}:3001` };
}

async function ingestByExec(name: string, file: string, args: string[]): Promise<string> {
	const result = await podman().run(
		["exec", "-i", name, "bun", "bin/fax.ts", "ingest", "-", ...args],
		Bun.file(file),
	);
	expect([result.code, result.stderr]).toEqual([0, ""]);
	return result.stdout.trim();
}

async function listedSlugs(base: string): Promise<string[]> {
	const list = (await (await get(`${base}/api/faxes`)).json()) as { slug: string }[];
	return list.map((fax) => fax.slug);
}

/** A line from the middle of each CA the host added (the proxy's), to look for in the image. */
function hostCaLines(): string[] {
	const dir = "/usr/local/share/ca-certificates";
	if (!existsSync(dir)) return [];
	const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((file) =>
		file.endsWith(".crt"),
	);
	return files
		.map((file) => readFileSync(join(dir, file), "utf8").split("\n")[5] ?? "")
		.filter((line) => line.length > 40);
}

test("the image holds what the server loads, and not the build's CA", async () => {
	const caPatterns = hostCaLines().flatMap((line) => ["-e", line]);
	const script = [
		"ls /app; echo ---; ls /app/docs; echo ---; cd /app/fixtures && find . -type f | sort; echo ---; ls /app/node_modules; echo ---",
		"ls /run/secrets 2>/dev/null; echo ---",
		caPatterns.length === 0 ? "" : `grep -rlF "$@" /etc /usr/local /app /home /root 2>/dev/null; echo ---`,
	].join("\n");
	const output = await podman().ok([
		"run",
		"--rm",
		"--entrypoint",
		"sh",
		IMAGE,
		"-c",
		script,
		"sh",
		...caPatterns,
	]);
	const [top, docs, fixtures, modules, secrets, caFiles] = output
		.split("---")
		.map((part) => part.trim().split("\n"));
	expect(top).toEqual(["bin", "data", "docs", "fixtures", "lib", "node_modules", "package.json", "routes"]);
	// The demo faxes, and the session log of the demo call (lib/demo/demo-call.ts).
	expect([docs, fixtures]).toEqual([["API.md"], ["./demo-faxes.json", "./hylafax/clean/receiver.log"]]);
	expect(modules).toContain("elysia");
	expect(modules).toContain("redoc");
	expect(
		modules?.filter((name) =>
			["typescript", "bun-types", "react-dom", "core-js", "@types", "@flydotio"].includes(name),
		),
	).toEqual([]);
	expect([secrets, caFiles ?? [""]]).toEqual([[""], [""]]);
	console.log(`host CAs looked for in the image: ${caPatterns.length / 2}`);
	// 176 MB before the image was made to hold only what the server loads, 77 MB after.
	expect(projectLayers).toBeLessThan(90e6);
});

let first: Awaited<ReturnType<typeof runImage>>;
let firstSlug = "";

test("the image starts, answers and reports healthy, bun as PID 1 as uid 1000", async () => {
	first = await runImage("testfax-first");
	const ms = await untilAnswers(`${first.base}/api/faxes`);
	console.log(`first answer ${ms.toFixed(0)} ms after \`podman run\` returned`);
	expect(await listedSlugs(first.base)).toEqual([]);
	const health = await podman().run(["healthcheck", "run", first.name]);
	expect(health.code).toBe(0);
	expect(await podman().ok(["inspect", "--format", "{{.State.Health.Status}}", first.name])).toBe("healthy");
	const pid1 = await podman().ok([
		"exec",
		first.name,
		"sh",
		"-c",
		"tr '\\0' ' ' </proc/1/cmdline; grep ^Uid /proc/1/status",
	]);
	expect(pid1.split("\n")).toEqual(["bun bin/server.ts Uid:\t1000\t1000\t1000\t1000"]);
	const docs = await get(`${first.base}/docs/API.md`);
	expect([docs.status, await docs.text()]).toEqual([200, readFileSync(join(ROOT, "docs/API.md"), "utf8")]);
	expect((await get(`${first.base}/docs/redoc.standalone.js`)).status).toBe(200);
});

test("`fax ingest` run in the container by exec lists a fax", async () => {
	firstSlug = await ingestByExec(first.name, FAX, ["--source", "phone", "--sender", "+1 555 010 4242"]);
	expect(firstSlug).toMatch(/^fax_[A-Za-z0-9]{12}$/);
	expect(await listedSlugs(first.base)).toEqual([firstSlug]);
});

test("`podman stop` (SIGTERM) answers a held `wait` at once and exits 0 inside the grace period", async () => {
	const etag = (await get(`${first.base}/api/faxes`)).headers.get("etag") ?? "";
	const held = get(`${first.base}/api/faxes?wait=30`, { "if-none-match": etag }).then((answer) => ({
		status: answer.status,
		at: performance.now(),
	}));
	await until(async () => (await heldOn(first.admin)) === 1, "the poll held");
	const began = performance.now();
	const stopMs = await timedCommand(podman(), ["podman", "stop", first.name]);
	const answer = await held;
	console.log(
		`podman stop: ${stopMs.toFixed(0)} ms; the held poll answered after ${(answer.at - began).toFixed(0)} ms`,
	);
	expect(answer.status).toBe(304);
	expect(await exitCode(podman(), first.name)).toBe(0);
	expect(await shutdownLine(podman(), first.name)).toMatchObject({ signal: "SIGTERM", in_flight: 1, cut: 0 });
	// Well inside podman's 10 s before SIGKILL, and the drain's own 8 s.
	expect(stopMs).toBeLessThan(5000);
});

test("a new container with a read-only root file system serves the same volume and ingests into it", async () => {
	const second = await runImage("testfax-second", ["--read-only", "--read-only-tmpfs=false"]);
	await untilAnswers(`${second.base}/api/faxes`);
	expect(await listedSlugs(second.base)).toEqual([firstSlug]);
	const slug = await ingestByExec(second.name, EMAIL, ["--source", "email"]);
	expect(await listedSlugs(second.base)).toEqual([slug, firstSlug]);
	const pdf = await get(`${second.base}/cdn/faxes/${slug}.pdf`);
	expect([pdf.status, pdf.headers.get("content-type")]).toEqual([200, "application/pdf"]);
	expect((await podman().run(["healthcheck", "run", second.name])).code).toBe(0);
	const write = await podman().run(["exec", second.name, "touch", "/app/written"]);
	expect(write.stderr).toContain("Read-only file system");
	await timedCommand(podman(), ["podman", "stop", second.name]);
	expect(await exitCode(podman(), second.name)).toBe(0);
});

test("read-only too: the demo faxes with SEED_DEMO=1 on a fresh volume", async () => {
	const demo = await runImage(
		"testfax-demo",
		["--read-only", "--read-only-tmpfs=false", "-e", "SEED_DEMO=1"],
		"testfax-container-test-demo",
	);
	await untilAnswers(`${demo.base}/api/faxes`);
	const fax = await get(`${demo.base}/api/faxes/fax_DemoPhone01`);
	expect(fax.status).toBe(200);
	await timedCommand(podman(), ["podman", "stop", demo.name]);
	expect(await exitCode(podman(), demo.name)).toBe(0);
});

test("deploy/runtime/install-node.sh gives a fresh Debian 12 the Node the project accepts; run again, it changes nothing", async () => {
	const app = "/opt/testfax-api";
	const check = `${app}/bin/check-node.mjs`;
	const script = [
		`${app}/deploy/runtime/install-node.sh; echo "first $?"`,
		// Debian's own Node is still there, and still refused; the PATH finds npm's first.
		`/usr/bin/node ${check}; echo "debian $(/usr/bin/node --version | cut -d. -f1) $?"`,
		`node ${check}; echo "$(command -v node) $(node --version | cut -d. -f1) $?"`,
		`${app}/deploy/runtime/install-node.sh | sed 's/v[0-9.]*/vX/'; echo "second $?"`,
	].join("; ");
	// The registry is reached through this host's TLS proxy: hand its CA bundle over, as docs/operations/containers.md says.
	const bundle = caBundle();
	const ca =
		bundle === null
			? []
			: ["-v", `${bundle}:/run/host-ca.crt:ro`, "-e", "NODE_EXTRA_CA_CERTS=/run/host-ca.crt"];
	const result = await podman().run([
		"run",
		"--rm",
		"-v",
		`${ROOT}:${app}:ro`,
		...ca,
		BOOKWORM,
		"sh",
		"-c",
		script,
	]);
	const lines = result.stdout.trim().split("\n");
	expect(lines[0]).toMatch(
		/^install-node\.sh: Node v22\.\d+\.\d+ in \/usr\/local\/bin\/node, npm 9\.2\.\d+$/,
	);
	expect(lines.slice(1)).toEqual([
		"first 0",
		"debian v18 1",
		"/usr/local/bin/node v22 0",
		"install-node.sh: Node vX on the PATH: nothing to change",
		"second 0",
	]);
	expect(result.stderr).toMatch(DEBIAN_NODE_REFUSED);
}, 600_000);

test("deploy/receivers/install.sh makes a fresh Debian 12 a receivers host, every daemon started; run again, it changes nothing", async () => {
	// The stand-in debian:bookworm-slim is a minimal Debian. Privileged, as a
	// host's root is: hylafax-server's postinst runs faxsetup, which bind-mounts
	// /etc/hylafax into the spool, and without it asks for an area code forever.
	const install = "/opt/testfax-api/deploy/receivers/install.sh";
	// First from a checkout whose npm ci dropped sharp's native package, as
	// Debian 12's Node 18 does: refused before anything is installed or started.
	const broken = checkoutWithoutSharpBinary();
	const script = [
		// Debian 12's own Node (18.20): npm would install under it and drop sharp's native package.
		"apt-get update -qq >/dev/null && apt-get install -y -qq nodejs >/dev/null 2>&1",
		`node /opt/testfax-api/bin/check-node.mjs; echo "node $(node --version | cut -d. -f1) $?"`,
		`${install} --app /opt/testfax-broken </dev/null; echo "broken $?"`,
		"test -e /etc/testfax-api || echo 'nothing installed'",
		`${install} </dev/null >/tmp/first.log 2>&1; echo "first $?"`,
		`${install} </dev/null; echo "second $?"`,
		`${install} --status | sed 's/ (pid [0-9]*)$//'; echo "status $?"`,
		"grep -c '^install.sh: started' /tmp/first.log || tail -20 /tmp/first.log",
	].join("; ");
	try {
		const result = await podman().run([
			"run",
			"--rm",
			"--privileged",
			"-v",
			`${ROOT}:/opt/testfax-api:ro`,
			// The copy's packages are links into this checkout, by its own path.
			"-v",
			`${ROOT}:${ROOT}:ro`,
			"-v",
			`${broken.dir}:/opt/testfax-broken:ro`,
			BOOKWORM,
			"sh",
			"-c",
			script,
		]);
		// syslogd, cron, postfix, two iaxmodems, faxq, hfaxd, two faxgettys, call-watch, mail-watch and the API server.
		expect(result.stdout.trim().split("\n")).toEqual([
			"node v18 1",
			"broken 1",
			"nothing installed",
			"first 0",
			"install.sh: nothing to change",
			"second 0",
			...ALL_RUNNING,
			"status 0",
			"12",
		]);
		expect(result.stderr).toMatch(DEBIAN_NODE_REFUSED);
		expect(result.stderr).toContain(
			'install.sh: fax check: the document pipeline cannot load sharp: Could not load the "sharp" module using the linux-x64 runtime; nothing started',
		);
	} finally {
		broken.remove();
	}
}, 900_000);

composeTests(podman);

// deploy/runtime/install-instance.sh, the one command docs/operations/instance.md
// and docs/operations/cluster.md give for an API host's instance, run as an
// operator runs it: on a host without systemd, then with it, each time twice,
// then from another folder, then over a unit someone changed. It runs in a
// mount namespace of its own over a copy of /etc, with /run and /var/lib
// empty and a stand-in systemctl that keeps what it was asked, so nothing of
// this machine changes (the machines the tests run on boot no systemd).
// Needs root.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "../../testkit/processes.ts";
import { makeTempDir } from "../../testkit/server.ts";

const ROOT = join(import.meta.dir, "../..");
const dir = makeTempDir();
const out = join(dir, "out");
const next = join(dir, "next");

/** The runs, in the namespace: each step's output in out/NAME.{out,err,code}, the files it made beside them. */
const SCRIPT = `set -eu
dir=$1 root=$2
mkdir "$dir/etc"
cp -a /etc/. "$dir/etc/"
mount --bind "$dir/etc" /etc
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/lib
# A host that never had the service, whatever this machine has.
rm -rf /etc/testfax-api /etc/systemd/system/testfax-api.service
if id testfax >/dev/null 2>&1; then userdel testfax; fi
if getent group testfax >/dev/null; then groupdel testfax; fi
export PATH="$dir/bin:$PATH"
step() {
	name=$1
	shift
	set +e
	"$@" >"$dir/out/$name.out" 2>"$dir/out/$name.err"
	echo $? >"$dir/out/$name.code"
	set -e
}
install=$root/deploy/runtime/install-instance.sh
step bare "$install"
step bare-again "$install"
mkdir -p /run/systemd/system
step systemd "$install"
step systemd-again "$install"
stat -c '%n %a %U:%G' /etc/testfax-api/testfax.env /var/lib/testfax-api /var/lib/testfax-api/storage \\
	/etc/systemd/system/testfax-api.service >"$dir/out/modes"
id -nG testfax >"$dir/out/groups"
cp /etc/testfax-api/testfax.env "$dir/out/settings"
cp /etc/systemd/system/testfax-api.service "$dir/out/unit"
mount --bind "$root" "$dir/next"
step moved "$dir/next/deploy/runtime/install-instance.sh"
cp /etc/systemd/system/testfax-api.service "$dir/out/unit-moved"
sed -i 's/^Restart=on-failure$/Restart=always/' /etc/systemd/system/testfax-api.service
step changed "$install"
cp /etc/systemd/system/testfax-api.service "$dir/out/unit-changed"
`;

/** systemctl as far as the script asks it, its state in files: what it was asked, one line a call. */
const SYSTEMCTL = `#!/bin/sh
echo "$*" >>"${out}/systemctl"
case $1 in
is-enabled) [ -e "${dir}/enabled" ] ;;
enable) touch "${dir}/enabled" ;;
is-active) [ -e "${dir}/active" ] ;;
start | restart) touch "${dir}/active" ;;
esac
`;

const step = (name: string) => ({
	code: Number(readFileSync(join(out, `${name}.code`), "utf8")),
	stdout: readFileSync(join(out, `${name}.out`), "utf8"),
	stderr: readFileSync(join(out, `${name}.err`), "utf8"),
});
const file = (name: string) => readFileSync(join(out, name), "utf8");
const said = (...lines: string[]) => lines.map((line) => `install-instance.sh: ${line}\n`).join("");
const noSystemd = `no systemd on this host: nothing started (run ${ROOT}/bin/testfax server as testfax under your own supervisor)`;

beforeAll(async () => {
	for (const sub of [out, next, join(dir, "bin")]) mkdirSync(sub);
	writeFileSync(join(dir, "bin/systemctl"), SYSTEMCTL, { mode: 0o755 });
	writeFileSync(join(dir, "runs.sh"), SCRIPT);
	const ran = await runCommand(
		["unshare", "--mount", "--propagation", "private", "bash", join(dir, "runs.sh"), dir, ROOT],
		{ cwd: ROOT, env: {} },
	);
	if (ran.code !== 0) throw new Error(`the runs failed (${ran.code}): ${ran.stderr}`);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("without systemd: the user, the settings and the folders, then nothing to change; nothing started, and it says so", () => {
	expect(step("bare")).toEqual({
		code: 0,
		stdout: said(
			"made the user testfax",
			"wrote /etc/testfax-api/testfax.env (edit it: docs/operations/instance.md)",
			"made /var/lib/testfax-api",
			"made /var/lib/testfax-api/storage",
			noSystemd,
		),
		stderr: "",
	});
	expect(step("bare-again")).toEqual({ code: 0, stdout: said("nothing to change", noSystemd), stderr: "" });
});

test("with systemd: the unit written, enabled and started, then nothing to change", () => {
	expect(step("systemd")).toEqual({
		code: 0,
		stdout: said(
			"wrote /etc/systemd/system/testfax-api.service",
			"enabled testfax-api.service",
			"started testfax-api.service",
		),
		stderr: "",
	});
	expect(step("systemd-again")).toEqual({ code: 0, stdout: said("nothing to change"), stderr: "" });
	expect(file("unit")).toBe(
		readFileSync(join(ROOT, "deploy/runtime/testfax-api.service"), "utf8").replaceAll(
			"/opt/testfax-api",
			ROOT,
		),
	);
});

test("the settings are testfax's to read and no one else's, the folders its own; testfax is in no other group", () => {
	expect(file("modes").trim().split("\n")).toEqual([
		"/etc/testfax-api/testfax.env 640 root:testfax",
		"/var/lib/testfax-api 2770 testfax:testfax",
		"/var/lib/testfax-api/storage 2770 testfax:testfax",
		"/etc/systemd/system/testfax-api.service 644 root:root",
	]);
	expect(file("groups")).toBe("testfax\n");
});

test("the settings are the shipped ones, the receivers' queues left out: no host without receivers reports them", () => {
	const shipped = readFileSync(join(ROOT, "deploy/receivers/testfax.env"), "utf8");
	expect(shipped).toMatch(/^RECEIVER_RECVQ=/m);
	expect(file("settings")).toBe(shipped.replace(/^RECEIVER_/gm, "#RECEIVER_"));
});

test("run from another folder, it takes the unit over and restarts the instance", () => {
	expect(step("moved")).toEqual({
		code: 0,
		stdout: said(
			"wrote /etc/systemd/system/testfax-api.service",
			"restarted testfax-api.service (its unit changed)",
		),
		stderr: "",
	});
	expect(file("unit-moved")).toContain(`ExecStart=${next}/bin/testfax server\n`);
	expect(file("systemctl").trim().split("\n")).toEqual([
		"daemon-reload",
		"is-enabled --quiet testfax-api",
		"enable --quiet testfax-api",
		"is-active --quiet testfax-api",
		"start testfax-api",
		"is-enabled --quiet testfax-api",
		"is-active --quiet testfax-api",
		"daemon-reload",
		"is-enabled --quiet testfax-api",
		"is-active --quiet testfax-api",
		"restart testfax-api",
	]);
});

test("a unit someone changed is refused in one line and left as they made it", () => {
	expect(step("changed")).toEqual({
		code: 1,
		stdout: "",
		stderr: said(
			"/etc/systemd/system/testfax-api.service was changed by someone else: not overwriting it (move it away, or merge it into install-instance.sh's version)",
		),
	});
	expect(file("unit-changed")).toBe(file("unit-moved").replace("Restart=on-failure", "Restart=always"));
});

// The tests' DNS server (testkit/dns-server.ts) goes with the test process
// that started it, however that process ends: a test leaves the machine as it
// found it. dnsmasq used to change to the user "nobody", which cleared its
// parent-death signal, and outlived a killed test process.
import { expect, test } from "bun:test";
import { join } from "node:path";

const DNS_SERVER = join(import.meta.dir, "../../testkit/dns-server.ts");

/** The process ids of the dnsmasq processes listening on `port`. */
function dnsmasqOn(port: string): string[] {
	const found = Bun.spawnSync(["pgrep", "-f", `dnsmasq .*--port=${port} `])
		.stdout.toString()
		.trim();
	return found === "" ? [] : found.split("\n");
}

test("a test process killed with SIGKILL leaves no dnsmasq behind", async () => {
	const script = `const { emptyDnsServer } = await import(${JSON.stringify(DNS_SERVER)});
console.log((await emptyDnsServer()).address); await Bun.sleep(60_000);`;
	const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
	const reader = child.stdout.getReader();
	const { value } = await reader.read();
	const port = new TextDecoder().decode(value).trim().split(":")[1] ?? "";
	expect(dnsmasqOn(port)).toHaveLength(1);
	child.kill("SIGKILL");
	await child.exited;
	const deadline = Date.now() + 5000;
	while (dnsmasqOn(port).length > 0 && Date.now() < deadline) await Bun.sleep(50);
	expect(dnsmasqOn(port)).toEqual([]);
});

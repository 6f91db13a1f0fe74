import { expect } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Fax } from "../../lib/fax/index.ts";
import { formatUtcSeconds } from "../../lib/fax/index.ts";
import { makeTempDir, runFax, type TestServer } from "../../testkit/server.ts";

/** A record in the `fax import` format; the API keeps whole seconds of `receivedAtMs`. */
export function faxRecord(slug: string, sender: string | null, receivedAtMs: number, pageCount = 1) {
	return {
		slug,
		source: "phone",
		sender,
		received_at: formatUtcSeconds(Math.floor(receivedAtMs / 1000)),
		page_count: pageCount,
		file_size: 1000 * pageCount,
	};
}

/** Adds faxes to the running server's database the way operators do: `fax import`. */
export async function importWhileRunning(server: TestServer, records: unknown[]): Promise<void> {
	const dir = makeTempDir();
	try {
		const file = join(dir, "faxes.json");
		await Bun.write(file, JSON.stringify(records));
		const result = await runFax(["import", file], server.env);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** The fax exactly as the API serves it on its own endpoint. */
export async function servedFax(server: TestServer, slug: string): Promise<Fax> {
	const response = await server.request(`/api/faxes/${slug}`);
	expect(response.status).toBe(200);
	return (await response.json()) as Fax;
}

/** A loopback port that nothing listens on. */
export function closedPort(): number {
	const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
	const { port } = probe;
	probe.stop(true);
	if (port === undefined) throw new Error("no port");
	return port;
}

import { expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { localPosition, replicaPosition } from "../../lib/replication/litestream-metrics.ts";
import { StallClock } from "../../lib/replication/stall-clock.ts";
import { makeTempDir } from "../../testkit/server.ts";

const GIB4 = 2 ** 32;

test("the replica's position comes from Litestream 0.3.13's gauges, index above offset", () => {
	const text = [
		'litestream_shadow_wal_size{db="/d/faxes.sqlite"} 5000000',
		'litestream_replica_wal_index{db="/d/faxes.sqlite",name="sftp"} 1',
		'litestream_replica_wal_offset{db="/d/faxes.sqlite",name="sftp"} 900000',
	].join("\n");
	expect(replicaPosition(text)).toBe(GIB4 + 900000);
	expect(replicaPosition(text.split("\n")[0] ?? "")).toBeUndefined();
});

test("the local position is the newest shadow WAL file's index and size", async () => {
	const dir = makeTempDir();
	try {
		const wal = join(dir, ".faxes.sqlite-litestream", "generations", "0123456789abcdef", "wal");
		mkdirSync(wal, { recursive: true });
		expect(await localPosition(join(dir, "faxes.sqlite"))).toBeUndefined();
		writeFileSync(join(dir, ".faxes.sqlite-litestream", "generation"), "0123456789abcdef");
		writeFileSync(join(wal, "00000009.wal"), Buffer.alloc(100));
		writeFileSync(join(wal, "0000000a.wal"), Buffer.alloc(4152));
		expect(await localPosition(join(dir, "faxes.sqlite"))).toEqual({
			generation: "0123456789abcdef",
			position: 10 * GIB4 + 4152,
		});
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

const at = (local: number, replica?: number) => ({ local, replica });

test("a steady stream whose replica follows a second behind stalls one second at most", () => {
	const clock = new StallClock(0);
	clock.observe(at(100, 100), 0);
	for (let s = 1; s <= 60; s++) {
		// Each second the database grows; the replica holds what it had a second before.
		clock.observe(at(100 + s * 10, 100 + (s - 1) * 10), s * 1000);
		expect(clock.stallSeconds(s * 1000)).toBe(0);
		expect(clock.stallSeconds(s * 1000 + 900)).toBeCloseTo(0.9);
		expect(clock.stuck(s * 1000 + 900, 30_000, 300_000)).toBe(false);
	}
});

test("a replica that stops moving while the database grows stalls from the first write it misses", () => {
	const clock = new StallClock(0);
	clock.observe(at(100, 100), 0);
	clock.observe(at(110, 100), 5000);
	clock.observe(at(120, 100), 6000);
	expect(clock.stallSeconds(35_000)).toBe(30);
	expect(clock.stuck(34_999, 30_000, 300_000)).toBe(false);
	expect(clock.stuck(35_000, 30_000, 300_000)).toBe(true);
	// The replica confirms 110: the oldest it misses is now 120's.
	clock.observe(at(120, 110), 36_000);
	expect(clock.stallSeconds(36_000)).toBe(30);
	clock.observe(at(120, 120), 37_000);
	expect(clock.stallSeconds(37_000)).toBe(0);
});

test("an idle database never stalls, and a start does not count what the database held before", () => {
	const clock = new StallClock(0);
	clock.observe(at(5000), 0);
	clock.observe(at(5000), 400_000);
	expect(clock.stallSeconds(400_000)).toBe(0);
	expect(clock.stuck(400_000, 30_000, 300_000)).toBe(false);
	clock.observe(at(5010), 401_000);
	expect(clock.stallSeconds(411_000)).toBe(10);
});

test("a restart carries the stall until the new process confirms its first position", () => {
	const clock = new StallClock(0);
	clock.observe(at(100, 100), 0);
	clock.observe(at(110, 100), 1000);
	clock.restart(31_000);
	// The new generation starts again from small positions.
	clock.observe(at(7), 32_000);
	clock.observe(at(9), 33_000);
	expect(clock.stallSeconds(40_000)).toBe(39);
	expect(clock.stuck(40_000, 30_000, 300_000)).toBe(false);
	expect(clock.stuck(331_000, 30_000, 300_000)).toBe(true);
	clock.observe(at(9, 9), 41_000);
	expect(clock.stallSeconds(41_000)).toBe(0);
});

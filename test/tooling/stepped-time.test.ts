import { describe, expect, test } from "bun:test";
import { SteppedTime } from "../../testkit/stepped-time.ts";

describe("SteppedTime, the server's time a test steps", () => {
	test("moves the wall and monotonic clocks only when advanced", () => {
		const time = new SteppedTime(1_700_000_000_000);
		expect([time.now(), time.monotonic()]).toEqual([1_700_000_000_000, 0]);
		time.advance(1500);
		expect([time.now(), time.monotonic()]).toEqual([1_700_000_001_500, 1500]);
	});

	test("runs each timer once, earliest first, with the clocks at its own time", () => {
		const time = new SteppedTime(0);
		const ran: string[] = [];
		time.setTimer(() => ran.push(`b@${time.monotonic()}`), 900);
		time.setTimer(() => ran.push(`a@${time.now()}`), 300);
		time.setTimer(() => ran.push(`c@${time.monotonic()}`), 1000);
		time.advance(899);
		expect([ran, time.pending]).toEqual([["a@300"], 2]);
		time.advance(101);
		expect([ran, time.pending, time.monotonic()]).toEqual([["a@300", "b@900", "c@1000"], 0, 1000]);
		time.advance(5000);
		expect(ran.length).toBe(3);
	});

	test("a cancelled timer never runs; a timer set by a timer runs in the same advance when it falls due", () => {
		const time = new SteppedTime(0);
		const ran: number[] = [];
		const cancel = time.setTimer(() => ran.push(1), 100);
		time.setTimer(() => time.setTimer(() => ran.push(time.monotonic()), 50), 200);
		cancel();
		time.advance(300);
		expect([ran, time.pending]).toEqual([[250], 0]);
	});
});

import { expect, test } from "bun:test";
import { RefusedKeys } from "../../lib/rate-limit/refused-keys.ts";

test("a remembered refusal answers until its window ends, then is forgotten", async () => {
	const refused = new RefusedKeys(60);
	refused.remember("a", performance.now(), 1500);
	expect(refused.refusal("a")).toMatchObject({ allowed: false, limit: 60, remaining: 0, retryAfter: 2 });
	expect(refused.refusal("b")).toBeNull();
	refused.remember("c", performance.now(), 30);
	await Bun.sleep(40);
	expect([refused.refusal("c"), refused.size]).toEqual([null, 1]);
});

test("the window's end is counted from the sending of the command, never later than Redis's", () => {
	const refused = new RefusedKeys(60);
	refused.remember("a", performance.now() - 1000, 1000);
	expect(refused.refusal("a")).toBeNull();
});

test("full, it forgets every key at once and keeps the new one", () => {
	const refused = new RefusedKeys(60, 3);
	for (const key of ["a", "b", "c", "d"]) refused.remember(key, performance.now(), 60_000);
	expect([refused.size, refused.refusal("a"), refused.refusal("d")?.allowed]).toEqual([1, null, false]);
});

import { expect, test } from "bun:test";
import diagnostics from "node:diagnostics_channel";
import { completeTracingChannel } from "../../lib/util/index.ts";

test("a tracing channel has subscribers exactly while one of its event channels has one", () => {
	completeTracingChannel();
	completeTracingChannel();
	const events = ["start", "end", "asyncStart", "asyncEnd", "error"] as const;
	for (const event of events) {
		const channel = diagnostics.tracingChannel(`testfax:test:${event}`);
		const listener = () => {};
		expect(channel.hasSubscribers).toBe(false);
		diagnostics.subscribe(`tracing:testfax:test:${event}:${event}`, listener);
		expect([event, channel.hasSubscribers]).toEqual([event, true]);
		diagnostics.unsubscribe(`tracing:testfax:test:${event}:${event}`, listener);
		expect([event, channel.hasSubscribers]).toEqual([event, false]);
	}
});

test("a traced call still reaches its subscribers", async () => {
	completeTracingChannel();
	const channel = diagnostics.tracingChannel("testfax:test:traced");
	const seen: string[] = [];
	channel.subscribe({
		start: () => seen.push("start"),
		end: () => seen.push("end"),
		asyncStart: () => seen.push("asyncStart"),
		asyncEnd: () => seen.push("asyncEnd"),
		error: () => seen.push("error"),
	});
	expect(await channel.tracePromise(async () => 7, {})).toBe(7);
	expect(seen).toEqual(["start", "end", "asyncStart", "asyncEnd"]);
});

// The workaround's guard (docs/decisions.md, "Workarounds"): when this fails,
// Bun has Node's hasSubscribers of its own and completeTracingChannel can go.
// A process of its own, so no completed prototype of this file is seen.
test("Bun 1.4.5's TracingChannel has no hasSubscribers of its own", async () => {
	const probe = Bun.spawn(
		[
			process.execPath,
			"-e",
			'const d = require("node:diagnostics_channel"); console.log("hasSubscribers" in Object.getPrototypeOf(d.tracingChannel("probe")))',
		],
		{ stdout: "pipe" },
	);
	expect((await new Response(probe.stdout).text()).trim()).toBe("false");
});

import diagnostics from "node:diagnostics_channel";

/**
 * Gives the runtime's TracingChannel Node's `hasSubscribers` where it lacks
 * it, as Bun 1.4 does. pino and ioredis ask it before each log line and each
 * Redis command, and take a missing answer for "someone listens": every line
 * and command then went through a traced call (a wrapping promise, the
 * command's arguments sanitised) that nobody received. As in Node, a tracing
 * channel has subscribers when any of its five event channels has one.
 */
export function completeTracingChannel(): void {
	const prototype = Object.getPrototypeOf(diagnostics.tracingChannel("testfax:probe")) as object;
	if ("hasSubscribers" in prototype) return;
	Object.defineProperty(prototype, "hasSubscribers", {
		configurable: true,
		get(this: Record<"start" | "end" | "asyncStart" | "asyncEnd" | "error", diagnostics.Channel>) {
			return (
				this.start.hasSubscribers ||
				this.end.hasSubscribers ||
				this.asyncStart.hasSubscribers ||
				this.asyncEnd.hasSubscribers ||
				this.error.hasSubscribers
			);
		},
	});
}

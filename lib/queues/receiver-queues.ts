import type { FaxStore } from "../db/index.ts";
import { postfixQueue } from "./postfix-queue.ts";
import { recvqWaiting } from "./recvq-waiting.ts";

/** One receiver's queue at a scrape: null ages and counts when it could not be read. */
export interface QueueReading {
	receiver: "hylafax" | "postfix";
	/** Items not handed over to the service yet; null when the queue could not be read. */
	waiting: number | null;
	/** Seconds since the oldest of them arrived; 0 when none waits. */
	oldestSeconds: number | null;
}

export type ReceiverQueues = (nowSeconds: number) => Promise<QueueReading[]>;

/** What is watched: HylaFAX's receive queue and Postfix's `postqueue`, each only when set. */
export interface QueueWatch {
	/** RECEIVER_RECVQ: HylaFAX's receive queue folder (readable by everyone on Debian). */
	recvqDir: string | null;
	/** RECEIVER_POSTQUEUE: the postqueue command (`postqueue -j` lists the queue for any user). */
	postqueue: string | null;
}

async function reading(
	receiver: QueueReading["receiver"],
	read: () => Promise<number[]>,
	nowSeconds: number,
): Promise<QueueReading> {
	try {
		const arrivals = await read();
		const oldest = arrivals.length === 0 ? nowSeconds : Math.min(...arrivals);
		return { receiver, waiting: arrivals.length, oldestSeconds: Math.max(0, nowSeconds - oldest) };
	} catch {
		return { receiver, waiting: null, oldestSeconds: null };
	}
}

/**
 * The receivers' queues as the service's own user sees them, without any
 * privilege of the receivers: a fax or a mail whose hand-over failed stays
 * in its queue (HylaFAX's recvq until the sweep lists it, Postfix's deferred
 * queue after exit 75), so "waiting past N minutes" covers failed hand-overs too.
 */
export function receiverQueues(store: FaxStore, watch: QueueWatch): ReceiverQueues {
	const { recvqDir, postqueue } = watch;
	return async (nowSeconds) => {
		const readings: Promise<QueueReading>[] = [];
		if (recvqDir !== null)
			readings.push(reading("hylafax", () => recvqWaiting(recvqDir, store, nowSeconds), nowSeconds));
		if (postqueue !== null) readings.push(reading("postfix", () => postfixQueue(postqueue), nowSeconds));
		return Promise.all(readings);
	};
}

// `postqueue -j` answers within milliseconds; a wedged one must not hold a scrape.
const POSTQUEUE_TIMEOUT_MS = 5000;

/**
 * The arrival times (Unix seconds) of the messages in Postfix's queue, one
 * JSON object a line (postqueue(1), `-j`). Every message counts: on the
 * receivers' host Postfix carries the fax mail (deploy/receivers/postfix); a
 * Postfix that carries other mail too reports that mail's delays as well.
 */
export async function postfixQueue(postqueue: string): Promise<number[]> {
	const child = Bun.spawn([postqueue, "-j"], { stdout: "pipe", stderr: "ignore", stdin: "ignore" });
	const timer = setTimeout(() => child.kill(), POSTQUEUE_TIMEOUT_MS);
	try {
		const [text, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
		if (code !== 0) throw new Error(`${postqueue} -j exited with ${code}`);
		return text
			.split("\n")
			.filter((line) => line.trim() !== "")
			.map((line) => Number((JSON.parse(line) as { arrival_time: unknown }).arrival_time));
	} finally {
		clearTimeout(timer);
	}
}

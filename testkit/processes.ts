/** The ids of a process's direct children, from /proc (Linux). */
export async function childrenOf(pid: number): Promise<number[]> {
	const tasks = await Array.fromAsync(new Bun.Glob("*").scan({ cwd: `/proc/${pid}/task`, onlyFiles: false }));
	const lists = await Promise.all(
		tasks.map((task) =>
			Bun.file(`/proc/${pid}/task/${task}/children`)
				.text()
				.catch(() => ""),
		),
	);
	return lists.flatMap((list) => list.trim().split(/\s+/).filter(Boolean).map(Number));
}

/** Waits until `pid` has a child and returns it; fails after `timeoutMs`. */
export async function firstChildOf(pid: number, timeoutMs = 5000): Promise<number> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const [child] = await childrenOf(pid);
		if (child !== undefined) return child;
		if (Date.now() > deadline) throw new Error(`process ${pid} started no child within ${timeoutMs} ms`);
		await Bun.sleep(20);
	}
}

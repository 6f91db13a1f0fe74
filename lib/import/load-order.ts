/**
 * The positions of `times` in ascending order, equal times in their original
 * order. Each time and its position are packed into one double, so a native
 * numeric sort does the work, unless the span of times is too wide for that.
 */
export function ascendingOrder(times: Float64Array): Uint32Array {
	const count = times.length;
	const order = new Uint32Array(count);
	let min = Number.POSITIVE_INFINITY;
	let max = Number.NEGATIVE_INFINITY;
	for (const time of times) {
		if (time < min) min = time;
		if (time > max) max = time;
	}
	const positionBits = Math.ceil(Math.log2(count + 1));
	if ((max - min + 1) * 2 ** positionBits <= Number.MAX_SAFE_INTEGER) {
		const scale = 2 ** positionBits;
		const keys = new Float64Array(count);
		for (let i = 0; i < count; i++) keys[i] = ((times[i] ?? 0) - min) * scale + i;
		keys.sort();
		for (let i = 0; i < count; i++) order[i] = (keys[i] ?? 0) % scale;
		return order;
	}
	for (let i = 0; i < count; i++) order[i] = i;
	return order.sort((a, b) => (times[a] ?? 0) - (times[b] ?? 0) || a - b);
}

/** The value of one series in Prometheus text (`name{labels}` exactly as printed), or undefined. */
export function sample(metrics: string, series: string): number | undefined {
	const line = metrics.split("\n").find((candidate) => candidate.startsWith(`${series} `));
	return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

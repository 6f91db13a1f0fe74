/** `api/faxes/index.ts` → `/api/faxes`, `api/faxes/[slug].ts` → `/api/faxes/:slug`. */
export function routePathOf(file: string): string {
	const segments = file
		.replace(/\.ts$/, "")
		.split("/")
		.filter((segment, index, all) => !(segment === "index" && index === all.length - 1))
		.map((segment) => segment.replace(/^\[(\w+)\]$/, ":$1"));
	return `/${segments.join("/")}`;
}

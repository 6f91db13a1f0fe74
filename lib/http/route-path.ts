/** Route files of the admin listener live in this folder of routes/, which is the root of their paths. */
export const ADMIN_FOLDER = "admin/";

/**
 * `api/faxes/index.ts` → `/api/faxes`, `api/faxes/[slug].ts` → `/api/faxes/:slug`,
 * `admin/healthz.ts` → `/healthz` (on the admin listener).
 */
export function routePathOf(file: string): string {
	const segments = (file.startsWith(ADMIN_FOLDER) ? file.slice(ADMIN_FOLDER.length) : file)
		.replace(/\.ts$/, "")
		.split("/")
		.filter((segment, index, all) => !(segment === "index" && index === all.length - 1))
		.map((segment) => segment.replace(/^\[(\w+)\]$/, ":$1"));
	return `/${segments.join("/")}`;
}

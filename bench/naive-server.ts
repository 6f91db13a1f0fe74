/**
 * The naive yardstick: Bun.serve, the service's Redis round trip, one
 * prepared SQLite query and JSON.stringify per request. It reads only what
 * the benchmark sends (limit, since, from as a number; a slug) and checks
 * nothing.
 */
import { Database } from "bun:sqlite";
import { createFaxPresenter, type FaxRow, senderMatchKey } from "../lib/fax/index.ts";
import { answer, tooMany } from "./yardstick-answer.ts";
import { redisCounter } from "./yardstick-redis.ts";

const db = new Database(process.env.DATABASE_PATH ?? "", { readonly: true, strict: true });
const columns = "slug, source, sender, received_at, page_count, file_size";
const newest = "ORDER BY received_at DESC, id DESC LIMIT $limit";
const list = db.prepare<FaxRow, { after: number; limit: number }>(
	`SELECT ${columns} FROM faxes WHERE received_at > $after ${newest}`,
);
const bySender = db.prepare<FaxRow, { key: string; after: number; limit: number }>(
	`SELECT ${columns} FROM faxes WHERE sender_key = $key AND received_at > $after ${newest}`,
);
const bySlug = db.prepare<FaxRow, { slug: string }>(`SELECT ${columns} FROM faxes WHERE slug = $slug`);
const present = createFaxPresenter({
	cdnBaseUrl: process.env.CDN_BASE_URL ?? "",
	siteBaseUrl: process.env.SITE_BASE_URL ?? "",
});
const limit = Number(process.env.RATE_LIMIT_PER_MINUTE);
const count = redisCounter(process.env.REDIS_URL ?? "", process.env.RATE_LIMIT_PREFIX ?? "");

function body(url: URL): string {
	if (url.pathname.startsWith("/api/faxes/")) {
		const row = bySlug.get({ slug: url.pathname.slice("/api/faxes/".length) });
		return JSON.stringify(row === null ? { message: "" } : present(row));
	}
	const now = Math.floor(Date.now() / 1000);
	const since = url.searchParams.get("since");
	const after = since === null ? now - 86_400 : Math.floor(Date.parse(since) / 1000);
	const rows = (() => {
		const from = url.searchParams.get("from");
		const limit = Number(url.searchParams.get("limit") ?? 20);
		if (from === null) return list.all({ after, limit });
		return bySender.all({ key: senderMatchKey(from), after, limit });
	})();
	return JSON.stringify(rows.map(present));
}

const server = Bun.serve({
	hostname: "127.0.0.1",
	port: 0,
	async fetch(request) {
		const [counted, msLeft] = await count(request.headers.get("x-forwarded-for") ?? "");
		if (counted > limit) return tooMany(limit, msLeft);
		return answer(200, body(new URL(request.url)), limit, counted, msLeft);
	},
});
console.error(`listening on http://127.0.0.1:${server.port}`);

import { SQL } from "bun";
import { asPostgresError, CONNECT_TIMEOUT_SECONDS } from "./errors.ts";

// Downloads from the database share this many connections of their own.
const CONNECTIONS = 2;

const SLICE_SQL = {
	pdf: "SELECT substr(pdf, $2::int, $3::int) AS bytes FROM fax_files WHERE slug = $1",
	thumbnail: "SELECT substr(thumbnail, $2::int, $3::int) AS bytes FROM fax_files WHERE slug = $1",
} as const;

/**
 * Reads slices of the files' bytes asynchronously, on connections of the
 * server's own thread (Bun.SQL), so that sending a file from the database
 * never stops the event loop as the bridge's synchronous reads would (a 1 MiB
 * read through it held the loop about 100 ms on a loaded machine).
 */
export class FileReader {
	readonly #sql: SQL;

	constructor(url: string) {
		this.#sql = new SQL(url, {
			max: CONNECTIONS,
			idleTimeout: 60,
			connectionTimeout: CONNECT_TIMEOUT_SECONDS,
		});
	}

	async slice(slug: string, kind: keyof typeof SLICE_SQL, offset: number, length: number) {
		try {
			const rows = (await this.#sql.unsafe(SLICE_SQL[kind], [slug, offset + 1, length])) as {
				bytes: Uint8Array;
			}[];
			return rows[0]?.bytes ?? null;
		} catch (error) {
			throw asPostgresError(error);
		}
	}

	close(): void {
		this.#sql.close().catch(() => {});
	}
}

import type { SqlDatabase, SqlStatement as Statement } from "./sql.ts";

/** A not-processable fax's file as received, with what telling its kind apart needs. */
export interface OriginalFile {
	bytes: Uint8Array;
	/** The input's name (a hint for an email); null for standard input. */
	filename: string | null;
	/** An email our own mail server relayed (its first Received header is ours). */
	relayed: boolean;
}

/** The statements on fax_originals (schema version 7): never read by the API. */
export class FaxOriginals {
	readonly #add: Statement;
	readonly #bySlug: Statement<{ filename: string | null; relayed: number; original: Uint8Array }>;
	readonly #moveReceipts: Statement;

	constructor(db: SqlDatabase) {
		this.#add = db.prepare(
			`INSERT INTO fax_originals (slug, filename, relayed, original) VALUES ($slug, $filename, $relayed, $original)
			 ON CONFLICT (slug) DO UPDATE SET filename = excluded.filename, relayed = excluded.relayed, original = excluded.original`,
		);
		this.#bySlug = db.prepare("SELECT filename, relayed, original FROM fax_originals WHERE slug = $slug");
		this.#moveReceipts = db.prepare("UPDATE receipts SET slug = $to WHERE slug = $from");
	}

	async add(slug: string, file: OriginalFile): Promise<void> {
		await this.#add.run({
			slug,
			filename: file.filename,
			relayed: file.relayed ? 1 : 0,
			original: file.bytes,
		});
	}

	async get(slug: string): Promise<OriginalFile | null> {
		const row = await this.#bySlug.get({ slug });
		if (row === null) return null;
		return { bytes: new Uint8Array(row.original), filename: row.filename, relayed: row.relayed === 1 };
	}

	/** A receipt key now names the fax listed in place of `from`: handed over again, it is that one. */
	async moveReceipts(from: string, to: string): Promise<void> {
		await this.#moveReceipts.run({ from, to });
	}
}

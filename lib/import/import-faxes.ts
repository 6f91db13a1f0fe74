import type { FaxStore } from "../db/index.ts";
import { type FaxRow, newSlugsInOrder } from "../fax/index.ts";
import { checkFaxRecord, type FaxRecord, toFaxRow } from "./fax-record.ts";
import { ascendingOrder } from "./load-order.ts";

export interface ImportSummary {
	imported: number;
	removed: number;
	/** The longest write transaction of the import, in milliseconds: at least as long as it held the lock. */
	longestTransactionMs: number;
}

/** Why nothing of a file was imported. */
export interface InvalidFile {
	/** The first problems found, each `record N: field: rule`, at most MAX_PROBLEMS_KEPT. */
	errors: string[];
	/** All problems found, shown or not. */
	problemCount: number;
	/** Records with at least one problem. */
	invalidRecords: number;
	/** Records in the file. */
	records: number;
}

export type ImportResult = { ok: true; summary: ImportSummary } | ({ ok: false } & InvalidFile);

export interface ImportProgress {
	total: number;
	/** Records checked so far. */
	validated: number;
	/** Records written so far (hidden until the import is published). */
	written: number;
}

export const MAX_PROBLEMS_KEPT = 50;
// Up to this many records go in one transaction (a few milliseconds); a larger
// import is staged in short transactions behind its own marker (StagedImport).
const SMALL_IMPORT = 1000;
const PROGRESS_EVERY = 10_000;

interface Checked {
	records: FaxRecord[];
	invalid: InvalidFile;
}

/** Checks every record and the slugs across records and the database. */
async function checkAll(
	store: FaxStore,
	values: unknown[],
	nowSeconds: number,
	progress: (validated: number) => void,
): Promise<Checked> {
	const invalid: InvalidFile = { errors: [], problemCount: 0, invalidRecords: 0, records: values.length };
	const report = (index: number, problems: string[]) => {
		invalid.invalidRecords++;
		invalid.problemCount += problems.length;
		for (const problem of problems) {
			if (invalid.errors.length < MAX_PROBLEMS_KEPT) invalid.errors.push(`record ${index}: ${problem}`);
		}
	};
	const records: FaxRecord[] = [];
	const firstUse = new Map<string, number>();
	for (const [index, value] of values.entries()) {
		if (index % PROGRESS_EVERY === 0) progress(index);
		const checked = checkFaxRecord(value, nowSeconds);
		const problems = checked.ok ? [] : checked.problems;
		const slug = (value as { slug?: unknown } | null)?.slug;
		if (
			typeof slug === "string" &&
			(checked.ok || !problems.some((problem) => problem.startsWith("slug:")))
		) {
			const first = firstUse.get(slug);
			if (first !== undefined) problems.push(`slug: ${slug} is also the slug of record ${first}`);
			else if (await store.slugTaken(slug))
				problems.push(`slug: ${slug} is already used; slugs are never reused`);
			else firstUse.set(slug, index);
		}
		if (problems.length > 0) report(index, problems);
		else if (checked.ok) records.push(checked.record);
	}
	progress(values.length);
	return { records, invalid };
}

/**
 * The rows to write: faxes in received_at order (equal times in file order,
 * which is their insertion order), new slugs handed out in ascending order
 * along them, and the slugs of removed records.
 */
function rowsOf(records: FaxRecord[]): { faxes: FaxRow[]; removedSlugs: string[] } {
	const live = records.filter((record) => record.removed !== true);
	const removed = records.filter((record) => record.removed === true);
	const order = ascendingOrder(Float64Array.from(live, (record) => record.received_at));
	const newSlugs = newSlugsInOrder(records.filter((record) => record.slug === undefined).length);
	let nextSlug = 0;
	const slugOf = (record: FaxRecord) => record.slug ?? newSlugs[nextSlug++] ?? "";
	const faxes = Array.from(order, (position) => {
		const record = live[position] as FaxRecord;
		return toFaxRow(record, slugOf(record));
	});
	return { faxes, removedSlugs: removed.map(slugOf) };
}

async function write(
	store: FaxStore,
	rows: { faxes: FaxRow[]; removedSlugs: string[] },
	nowSeconds: number,
	progress: (written: number) => void,
	signal: AbortSignal | undefined,
): Promise<void> {
	const { faxes, removedSlugs } = rows;
	signal?.throwIfAborted();
	if (faxes.length + removedSlugs.length <= SMALL_IMPORT) {
		await store.write(async (writer) => {
			for (const fax of faxes) await writer.insert(fax);
			for (const slug of removedSlugs) await writer.tombstone(slug, nowSeconds);
		});
		progress(faxes.length + removedSlugs.length);
		return;
	}
	await store.cleanAbandonedImports();
	const staged = await store.beginImport();
	try {
		await staged.load(faxes, removedSlugs, nowSeconds, progress, signal);
		await staged.publish();
	} catch (error) {
		// Rows left behind if this fails too stay hidden; the next import or purge deletes them.
		await staged.abandon().catch(() => {});
		throw error;
	}
}

export interface ImportOptions {
	onProgress?: (progress: ImportProgress) => void;
	/** Stops the import before its next transaction; it throws the signal's reason and nothing shows. */
	signal?: AbortSignal;
}

/**
 * Imports a parsed JSON document of fax records, all or nothing: every record
 * is checked first, and any problem leaves the database untouched. A failure
 * while writing (a busy database, a full disk, the signal) throws, and
 * nothing shows. `nowSeconds` is the time of removal of `removed` records and
 * bounds `received_at`.
 */
export async function importFaxes(
	store: FaxStore,
	document: unknown,
	nowSeconds: number,
	options: ImportOptions = {},
): Promise<ImportResult> {
	const { onProgress, signal } = options;
	if (!Array.isArray(document)) {
		return {
			ok: false,
			errors: ["the file must hold a JSON array of fax records"],
			problemCount: 1,
			invalidRecords: 0,
			records: 0,
		};
	}
	const total = document.length;
	const { records, invalid } = await checkAll(store, document, nowSeconds, (validated) =>
		onProgress?.({ total, validated, written: 0 }),
	);
	if (invalid.problemCount > 0) return { ok: false, ...invalid };
	const rows = rowsOf(records);
	await write(
		store,
		rows,
		nowSeconds,
		(written) => onProgress?.({ total, validated: total, written }),
		signal,
	);
	return {
		ok: true,
		summary: {
			imported: rows.faxes.length,
			removed: rows.removedSlugs.length,
			longestTransactionMs: store.longestTransactionMs(),
		},
	};
}

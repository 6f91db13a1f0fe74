// The rows of an email test's page that read its model (lib/report/email-model.ts):
// the scan page by page, the device's clock, the size a longer scan would
// reach, and what a real recipient's mail server would make of it. Nothing
// names the sender's domain or address: "your domain", never the domain.
import type { ScanPage } from "../document/index.ts";
import type { EmailModel, EmailReport } from "../report/index.ts";
import { MAIL_LIMITS_MB } from "../report/index.ts";
import { escapeHtml } from "./html.ts";
import { shortSize } from "./text.ts";

type Row = [string, string];

function pageText(page: ScanPage): string {
	const size = `${page.widthMm} × ${page.heightMm} mm`;
	const paper = page.paper === null ? size : `${page.paper} (${size})`;
	if (page.colour === null) return `${paper}, no scanned image`;
	const dpi = page.xDpi === page.yDpi ? `${page.xDpi} dpi` : `${page.xDpi} × ${page.yDpi} dpi`;
	const bytes = page.bytes === null ? "" : `, ${shortSize(page.bytes)}`;
	return `${paper}, ${dpi}, ${page.colour}, ${page.compression ?? "compression not known"}${bytes}`;
}

function scanRows(model: EmailModel): Row[] {
	const rows: Row[] = (model.pages ?? []).map((page, index) => [
		`Page ${index + 1} of the scan`,
		escapeHtml(pageText(page)),
	]);
	if (model.textLayer !== null)
		rows.push([
			"Text layer",
			model.textLayer
				? "Yes: the PDF holds text (OCR), so recipients can search and copy it"
				: "No: images only, so recipients cannot search or copy its text",
		]);
	if (model.creator !== null) rows.push(["Made by", escapeHtml(model.creator)]);
	if (model.producer !== null) rows.push(["PDF written by", escapeHtml(model.producer)]);
	if (model.tiffF !== undefined)
		rows.push([
			"TIFF-F (RFC 3949)",
			model.tiffF === null
				? "Conforms: a fax gateway takes it"
				: `Does not conform: ${escapeHtml(model.tiffF)}`,
		]);
	return rows;
}

/** A longer scan's email against the common limits, said only when it is over one. */
export function sizeWords(model: EmailModel): string | null {
	const size = model.size;
	if (size === null) return null;
	const limits = MAIL_LIMITS_MB.map((mb) => `${mb} MB`).join(" and ");
	return `At ${shortSize(size.bytesPerPage)} a page, a 10-page scan makes an email of about ${shortSize(size.longScanBytes)}, over ${size.overMb} MB: many mail servers take ${limits} at most.`;
}

/** The rows of an email test's model, after the ones of its delivery. */
export function emailModelRows(email: EmailReport, model: EmailModel): Row[] {
	const rows = scanRows(model);
	const size = sizeWords(model);
	if (size !== null) rows.push(["A longer scan", escapeHtml(size)]);
	if (model.auth !== null) {
		rows.push(["Real recipients", escapeHtml(model.auth.words)]);
		for (const check of model.auth.checks) rows.push([check.name, escapeHtml(check.words)]);
	}
	if (email.clockOffsetSeconds !== null && email.clockOffsetSeconds !== undefined)
		rows.push([
			"The device's clock",
			escapeHtml(model.clock?.words ?? "Right: within two minutes of our mail server's."),
		]);
	return rows;
}

import { PAPER_SIZES } from "../document/index.ts";
import type {
	DocumentReport,
	EmailModel,
	EmailReport,
	FaxReport,
	MailRefusalReport,
	SessionReport,
	TiffPage,
} from "../report/index.ts";
import { faxinfoTime } from "../report/index.ts";
import { emailModelRows } from "./email-part.ts";
import { escapeHtml } from "./html.ts";
import { numberText, sizeText } from "./text.ts";

// faxinfo's data formats, with the short names testers know them by.
// faxinfo's data formats, as it writes them, after the short names testers know.
const FORMAT_NAMES: Record<string, string> = {
	"1-D MH": "MH (1-D MH, ITU-T T.4)",
	"2-D MR": "MR (2-D MR, ITU-T T.4)",
	"2-D Uncompressed Mode": "MR (2-D Uncompressed Mode, ITU-T T.4)",
	"2-D MMR": "MMR (2-D MMR, ITU-T T.6)",
	JBIG: "JBIG (ITU-T T.85)",
	"JPEG Greyscale": "JPEG (JPEG Greyscale, ITU-T T.81)",
	"JPEG Full-Color": "JPEG (JPEG Full-Color, ITU-T T.81)",
};
const TIFF_CODINGS: Record<string, string> = {
	MH: "MH (1-D Modified Huffman, ITU-T T.4)",
	MR: "MR (2-D Modified READ, ITU-T T.4)",
	MMR: "MMR (2-D Modified Modified READ, ITU-T T.6)",
	JBIG: "JBIG (ITU-T T.85)",
};
// HylaFAX's Quality, in the words fax machines print on their panels.
const QUALITY_WORDS: Record<string, string> = {
	Normal: "standard",
	Fine: "fine",
	Superfine: "superfine",
	Hyperfine: "hyperfine",
};
// The paper sizes a fax page is measured against (of the standard ones), within MM_TOLERANCE.
const FAX_PAPER = new Set(["A4", "US Letter", "US Legal", "B4", "A3"]);
const PAPER = PAPER_SIZES.filter(([name]) => FAX_PAPER.has(name));
// A fax line is 215 mm for A4 paper: widths are compared loosely.
const MM_TOLERANCE = 7;

type Row = [term: string, value: string];

function resolutionWords(yDpi: number): string {
	if (yDpi < 150) return "standard";
	if (yDpi < 250) return "fine";
	if (yDpi < 350) return `${Math.round(yDpi)} dpi`;
	return "superfine";
}

function dpiText(dpi: number): string {
	return String(Math.round(dpi * 10) / 10);
}

function resolutionRow(page: TiffPage, quality: string | null): Row | null {
	if (page.xDpi === null || page.yDpi === null) return null;
	const words = quality === null ? resolutionWords(page.yDpi) : (QUALITY_WORDS[quality] ?? quality);
	return ["Resolution", `${dpiText(page.xDpi)} × ${dpiText(page.yDpi)} dpi (${escapeHtml(words)})`];
}

function pageSizeRow(page: TiffPage): Row {
	const pixels = `${numberText(page.width)} × ${numberText(page.height)} pixels`;
	if (page.xDpi === null || page.yDpi === null) return ["Page size", pixels];
	const width = (page.width / page.xDpi) * 25.4;
	const height = (page.height / page.yDpi) * 25.4;
	const paper = PAPER.find(
		([, w, h]) => Math.abs(width - w) <= MM_TOLERANCE && Math.abs(height - h) <= MM_TOLERANCE,
	);
	const named = paper === undefined ? "" : `, ${paper[0]}`;
	return ["Page size", `${pixels}, ${Math.round(width)} × ${Math.round(height)} mm${named}`];
}

function sessionRows(session: SessionReport): Row[] {
	const modulation = session.modulation === null ? "" : ` (${escapeHtml(session.modulation)})`;
	const rows: Row[] = [
		["Signal rate", `${numberText(session.bitsPerSecond)} bit/s${modulation}`],
		["Data format", escapeHtml(FORMAT_NAMES[session.dataFormat] ?? session.dataFormat)],
		["Error correction (ECM)", session.ecm ? "Yes" : "No"],
	];
	if (session.secondsOnLine !== null) {
		rows.push(["Time on the line", `${faxinfoTime(session.secondsOnLine)} (${session.secondsOnLine} s)`]);
	}
	return rows;
}

function documentRows(document: DocumentReport | null, session: SessionReport | null): Row[] {
	if (document === null || document.format === "PDF") return [];
	const rows: Row[] = [];
	if (session === null)
		rows.push(["Data format", escapeHtml(TIFF_CODINGS[document.coding] ?? document.coding)]);
	const page = document.firstPage;
	if (page === null) return rows;
	const resolution = resolutionRow(page, session?.quality ?? null);
	if (resolution !== null) rows.push(resolution);
	rows.push(pageSizeRow(page));
	return rows;
}

const TEST_KINDS: Record<EmailReport["test"], string> = {
	pdf: "Scan-to-email: a PDF attachment",
	t37: "Internet fax, ITU-T T.37 simple mode: a TIFF-F attachment",
	tiff: "A TIFF attachment (not marked as T.37 TIFF-F)",
	none: "An email without an attachment this site can show",
};

function tlsText(tls: EmailReport["tls"]): string | null {
	if (tls === null) return null;
	if (tls === "none") return "No: the message came to our mail server unencrypted";
	const cipher = tls.cipher === null ? "" : `, ${escapeHtml(tls.cipher)}`;
	const bits = tls.bits === null ? "" : ` (${tls.bits} bits)`;
	return `Yes: ${escapeHtml(tls.protocol)}${cipher}${bits}`;
}

/** What kind of test the email was; one with an attachment that is no PDF or TIFF says what it was. */
function kindOf(email: EmailReport): string {
	if (email.test !== "none" || email.mimeType === null) return TEST_KINDS[email.test];
	return "An attachment that is not a readable PDF or TIFF, whatever its MIME type below says";
}

function emailRows(email: EmailReport, model: EmailModel): Row[] {
	const rows: Row[] = [["Kind of test", kindOf(email)]];
	if (email.mimeType !== null) rows.push(["MIME type", `<code>${escapeHtml(email.mimeType)}</code>`]);
	if (email.attachmentName !== null) rows.push(["Attachment", escapeHtml(email.attachmentName)]);
	if (email.attachmentBytes !== null) rows.push(["Attachment size", sizeText(email.attachmentBytes)]);
	if (email.relayHost !== null) rows.push(["Sending mail host", escapeHtml(email.relayHost)]);
	const tls = tlsText(email.tls);
	if (tls !== null) rows.push(["Came over TLS", tls]);
	return [...rows, ...emailModelRows(email, model)];
}

const REFUSAL_KINDS: Record<MailRefusalReport["kind"], string> = {
	"too-large": "An email our mail server refused as too large",
	lost: "An email whose connection ended before the message was complete",
	timeout: "An email the device stopped sending before it was complete",
};

/** A message that never arrived whole: what our mail server's log told of it. */
function refusedRows(refused: MailRefusalReport): Row[] {
	const rows: Row[] = [["Kind of test", REFUSAL_KINDS[refused.kind]]];
	if (refused.bytes !== null) rows.push(["Received before it ended", sizeText(refused.bytes)]);
	rows.push(["Largest message our mail server takes", sizeText(refused.limitBytes)]);
	return rows;
}

/** The phone test's station ID as the received file holds it, masked as every sender. */
function stationRow(report: FaxReport, maskedFrom: string | null): Row[] {
	if (report.session === null) return [];
	const stationId = report.session.stationId === undefined ? maskedFrom : report.session.stationId;
	return [["Station ID (TSI)", stationId === null ? "None sent" : escapeHtml(stationId)]];
}

/**
 * The transmission report's section of a fax page: how the fax was sent, from
 * the received file's tags and its delivery. Every value is escaped here.
 */
export function reportPart(report: FaxReport, maskedFrom: string | null, email: EmailModel | null): string {
	const rows = [
		...(report.email === null || email === null ? [] : emailRows(report.email, email)),
		...(report.refused === undefined ? [] : refusedRows(report.refused)),
		...(report.session === null ? [] : sessionRows(report.session)),
		...documentRows(report.document, report.session),
		...stationRow(report, maskedFrom),
	];
	const problem =
		report.problem === undefined
			? ""
			: `<p id="problem"><strong>Not processable:</strong> ${escapeHtml(report.problem)}</p>\n`;
	if (rows.length === 0 && problem === "") return "";
	const list = rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join("\n");
	return `<section aria-labelledby="report-title">
<h2 id="report-title">Transmission report</h2>
${problem}${rows.length === 0 ? "" : `<dl id="report">\n${list}\n</dl>\n`}</section>`;
}

// The model of an email test, the counterpart of a call's (call-model.ts):
// what the report kept at ingest (the message, our mail server's record of
// its delivery, the document), read once into the facts every view shows:
// the verdict, its advice, the page's rows and the list row.
import type { ScanPage } from "../document/index.ts";
import { maskSender } from "../fax/index.ts";
import { type AuthModel, authModel } from "./auth-model.ts";
import type { EmailReport } from "./report.ts";

// A clock this close to ours is right: mail servers and devices drift by seconds.
const CLOCK_TOLERANCE_SECONDS = 120;
const HOUR = 3600;
// The limits a scan meets on its way: many company mail servers take 10 MB,
// most providers (Gmail, Microsoft 365) 25 MB, counted after base64, which
// makes an attachment a third larger.
export const MAIL_LIMITS_MB = [10, 25] as const;
const BASE64 = 4 / 3;
const LONG_SCAN_PAGES = 10;

/** The sending device's clock against our mail server's receipt of the message. */
export interface DeviceClock {
	/** Seconds the device's Date header is ahead of our receipt; negative: behind. */
	offsetSeconds: number;
	/** Within two minutes of a whole number of hours: a time zone set wrongly, not a drifting clock. */
	timeZone: boolean;
	words: string;
}

/** What a longer scan of the same kind would weigh, when it meets a common limit. */
export interface ScanSize {
	bytesPerPage: number;
	/** The email of a LONG_SCAN_PAGES-page scan, base64 included. */
	longScanBytes: number;
	/** The smallest common limit (MB) that email is over. */
	overMb: number;
}

export interface EmailModel {
	clock: DeviceClock | null;
	pages: ScanPage[] | null;
	/** The device or software that made the document (the PDF's Creator), and what wrote the PDF (its Producer). */
	creator: string | null;
	producer: string | null;
	/** A PDF with a text layer (OCR); null when not known (no PDF, an older report). */
	textLayer: boolean | null;
	/** A TIFF's first failing TIFF-F rule; null when it conforms; undefined for no TIFF. */
	tiffF: string | null | undefined;
	size: ScanSize | null;
	/** What a real recipient's mail server would make of it; null when not checked (not relayed by ours, older reports). */
	auth: AuthModel | null;
}

function durationWords(seconds: number): string {
	const minutes = Math.round(seconds / 60);
	if (minutes < 60) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
	const hours = Math.floor(minutes / 60);
	const rest = minutes % 60;
	const hourWords = `${hours} hour${hours === 1 ? "" : "s"}`;
	return rest === 0 ? hourWords : `${hourWords} ${rest} minute${rest === 1 ? "" : "s"}`;
}

/** The device's clock in words, once it is more than two minutes off; null before, or when not known. */
export function deviceClock(offsetSeconds: number | null | undefined): DeviceClock | null {
	if (offsetSeconds === null || offsetSeconds === undefined) return null;
	const off = Math.abs(offsetSeconds);
	if (off <= CLOCK_TOLERANCE_SECONDS) return null;
	const hours = Math.round(off / HOUR);
	const timeZone = hours > 0 && Math.abs(off - hours * HOUR) <= CLOCK_TOLERANCE_SECONDS;
	const way = offsetSeconds > 0 ? "ahead of" : "behind";
	const amount = timeZone ? durationWords(hours * HOUR) : durationWords(off);
	const words = timeZone
		? `${amount} ${way} ours: a time zone set wrongly (a local time sent as UTC, or the wrong zone)`
		: `${amount} ${way} ours: the clock has drifted, or was never set`;
	return { offsetSeconds, timeZone, words: `The device's clock is ${words}.` };
}

// An address in a device's own words (a Creator with its owner's email) is masked as every sender is.
const ADDRESS = /[^\s@()<>]+@[^\s@()<>]+/g;

function masked(text: string | null): string | null {
	return text === null || text === "" ? null : text.replace(ADDRESS, (address) => maskSender(address) ?? "");
}

/** A longer scan's email against the common limits, when it is over one; null when it fits them all. */
function scanSize(email: EmailReport, pages: number): ScanSize | null {
	if (email.attachmentBytes === null || pages === 0) return null;
	const bytesPerPage = email.attachmentBytes / pages;
	const longScanBytes = bytesPerPage * LONG_SCAN_PAGES * BASE64;
	const overMb = MAIL_LIMITS_MB.find((mb) => longScanBytes > mb * 1_000_000);
	return overMb === undefined ? null : { bytesPerPage, longScanBytes, overMb };
}

/** The model of an email test, from what its report kept. */
export function emailModel(email: EmailReport): EmailModel {
	const scan = email.scan ?? null;
	const pages = scan === null ? null : scan.pages;
	return {
		clock: deviceClock(email.clockOffsetSeconds),
		pages,
		creator: masked(scan?.creator ?? null),
		producer: masked(scan?.producer ?? null),
		textLayer: scan === null || email.test !== "pdf" ? null : scan.pages.some((page) => page.text),
		tiffF: scan?.tiffF,
		size: pages === null ? null : scanSize(email, pages.length),
		auth: email.auth === null || email.auth === undefined ? null : authModel(email.auth),
	};
}

import { expect } from "bun:test";
import { maskSender } from "../lib/fax/index.ts";

/** HylaFAX's own faxinfo; Debian's /usr/sbin/faxinfo is a wrapper that needs root. */
export const FAXINFO = "/usr/lib/hylafax/bin/faxinfo";

// The entities escapeHtml writes, and the tags a value may hold (<code>).
const ENTITIES: Record<string, string> = {
	"&amp;": "&",
	"&lt;": "<",
	"&gt;": ">",
	"&quot;": '"',
	"&#39;": "'",
};

/** The text of an HTML fragment as escapeHtml wrote it: its tags dropped, its entities read. */
export function htmlText(html: string): string {
	return html
		.replace(/<[^>]+>/g, "")
		.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** Every `<dt>term</dt><dd>value</dd>` pair of a page, as text; a later term of the same name wins. */
export function pageDetails(pageHtml: string): Record<string, string> {
	const pairs = [...pageHtml.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/gs)];
	return Object.fromEntries(pairs.map((pair) => [htmlText(pair[1] ?? ""), htmlText(pair[2] ?? "")]));
}

/** The verdict at the top of a fax's page: its rule, its list row's words and its text (title and advice). */
export function pageVerdict(pageHtml: string): { rule?: string; row?: string; text: string } {
	const section = /<section id="verdict"([^>]*)>([\s\S]*?)<\/section>/.exec(pageHtml);
	const attribute = (name: string) => new RegExp(`${name}="([^"]+)"`).exec(section?.[1] ?? "")?.[1];
	return { rule: attribute("data-rule"), row: attribute("data-row"), text: htmlText(section?.[2] ?? "") };
}

function run(command: string[]): string {
	const result = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
	if (result.exitCode !== 0)
		throw new Error(`${command.join(" ")}: exit ${result.exitCode}: ${result.stderr}`);
	return result.stdout.toString();
}

/** faxinfo's `Name: value` lines (its names right-aligned in 10 columns). */
export function faxinfoFields(tiffPath: string): Record<string, string> {
	const lines = run([FAXINFO, "-n", tiffPath]).split("\n");
	const fields = lines
		.map((line) => /^\s*([A-Za-z0-9]+): ?(.*)$/.exec(line))
		.filter((match) => match !== null);
	return Object.fromEntries(fields.map((match) => [match[1] ?? "", match[2] ?? ""]));
}

/** tiffinfo's first directory: size and resolution of page 1. */
export function tiffinfoFirstPage(tiffPath: string): {
	width: number;
	height: number;
	xDpi: number;
	yDpi: number;
} {
	const info = run(["tiffinfo", tiffPath]);
	const size = /Image Width: (\d+) Image Length: (\d+)/.exec(info);
	const resolution = /Resolution: ([\d.]+), ([\d.]+) pixels\/inch/.exec(info);
	if (size === null || resolution === null)
		throw new Error(`tiffinfo ${tiffPath}: no size or resolution in inches`);
	return {
		width: Number(size[1]),
		height: Number(size[2]),
		xDpi: Number(resolution[1]),
		yDpi: Number(resolution[2]),
	};
}

const QUALITY_WORDS: Record<string, string> = {
	Normal: "standard",
	Fine: "fine",
	Superfine: "superfine",
	Hyperfine: "hyperfine",
};

/**
 * Checks that a fax page (its HTML, as GET /faxtest/<slug> answers it) shows
 * the transmission report of `tiffPath`, the file HylaFAX received, exactly as
 * faxinfo and tiffinfo read that file: signal rate, data format, ECM, time on
 * the line, quality and resolution, page count, page 1's size, and the
 * station ID (masked).
 */
export function expectPageShowsFaxinfo(pageHtml: string, tiffPath: string): void {
	const faxinfo = faxinfoFields(tiffPath);
	const page = tiffinfoFirstPage(tiffPath);
	const shown = pageDetails(pageHtml);
	const pages = (text: string) => `${text} page${text === "1" ? "" : "s"}`;
	expect(shown["Signal rate"]?.replace(/,/g, "").startsWith(faxinfo.SignalRate ?? "<none>")).toBe(true);
	expect(shown["Data format"]).toContain(`(${faxinfo.DataFormat},`);
	expect(shown["Error correction (ECM)"]).toBe(faxinfo.ErrCorrect);
	const time = faxinfo.TimeToRecv ?? "";
	if (time === "<unknown>") expect(shown["Time on the line"]).toBeUndefined();
	else expect(shown["Time on the line"]?.startsWith(`${time} (`)).toBe(true);
	const quality = faxinfo.Quality ?? "";
	expect(shown.Resolution).toBe(`${page.xDpi} × ${page.yDpi} dpi (${QUALITY_WORDS[quality] ?? quality})`);
	expect(shown.Pages).toBe(faxinfo.Pages);
	expect(pageHtml).toContain(`PDF (${pages(faxinfo.Pages ?? "")},`);
	expect(
		shown["Page size"]?.startsWith(
			`${page.width.toLocaleString("en")} × ${page.height.toLocaleString("en")} pixels`,
		),
	).toBe(true);
	const tsi = faxinfo.Sender === "<UNSPECIFIED>" ? null : (faxinfo.Sender ?? null);
	const station = maskSender(tsi);
	expect(shown["Station ID (TSI)"]).toBe(station === null ? "None sent" : station);
}

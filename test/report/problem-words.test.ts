import { expect, test } from "bun:test";
import { buildReport } from "../../lib/report/index.ts";

const problem = (reason: string) =>
	buildReport({ source: "phone", bytes: new Uint8Array(), email: null, relayedByUs: false, reason }).problem;

test("the operator's reasons in a tester's words; an unknown one never shows its text", () => {
	expect(problem("truncated or corrupt PDF")).toBe("The PDF is cut short or damaged.");
	expect(problem("email has no PDF or TIFF attachment")).toBe("The email has no PDF or TIFF attachment.");
	expect(problem("file is larger than 40 MiB")).toBe(
		"The file is larger than 40 MiB, the most this site accepts.",
	);
	expect(problem("TIFF page 3 is truncated or corrupt")).toBe(
		"Page 3 of the TIFF image is cut short or damaged.",
	);
	expect(problem("PDF has more than 1000 pages")).toBe(
		"The PDF has more than 1000 pages, the most this site shows.",
	);
	expect(problem("email is larger than 60 MiB")).toBe(
		"The email is larger than 60 MiB, the most this site reads, so its attachment was not looked at.",
	);
	expect(problem("email has more than 1000 MIME parts before a PDF or TIFF attachment")).toBe(
		"The email has more than 1000 parts before any PDF or TIFF attachment; this site looks no further.",
	);
	expect(problem("email nests MIME parts more than 32 deep")).toBe(
		"The email nests its parts more than 32 deep; this site looks no deeper for the attachment.",
	);
	expect(problem("PDF is encrypted")).toBe("The PDF is protected by a password, so it cannot be shown.");
	expect(problem("file could not be processed: RangeError: offset out of bounds at /srv/x.ts")).toBe(
		"The file could not be read, so there is no image of it.",
	);
});

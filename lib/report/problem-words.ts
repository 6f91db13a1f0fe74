// Why a fax could not be processed, told to the tester who sent it: the
// operator's short reasons (lib/document) in the words of someone who only
// pressed Send. Only reasons of the file itself reach the page: a reason that
// quotes an internal error is told as "could not be read".
const WORDS: [RegExp, (match: RegExpMatchArray) => string][] = [
	[/^truncated or corrupt PDF$/, () => "The PDF is cut short or damaged."],
	[/^truncated or corrupt TIFF$/, () => "The TIFF image is cut short or damaged."],
	[
		/^TIFF page (\d+) is truncated or corrupt$/,
		(m) => `Page ${m[1]} of the TIFF image is cut short or damaged.`,
	],
	[/^PDF is encrypted$/, () => "The PDF is protected by a password, so it cannot be shown."],
	[/^email has no PDF or TIFF attachment$/, () => "The email has no PDF or TIFF attachment."],
	[
		/^file is larger than (\d+) MiB$/,
		(m) => `The file is larger than ${m[1]} MiB, the most this site accepts.`,
	],
	[
		/^email is larger than (\d+) MiB$/,
		(m) =>
			`The email is larger than ${m[1]} MiB, the most this site reads, so its attachment was not looked at.`,
	],
	[
		/^email has more than (\d+) MIME parts before a PDF or TIFF attachment$/,
		(m) =>
			`The email has more than ${m[1]} parts before any PDF or TIFF attachment; this site looks no further.`,
	],
	[
		/^email nests MIME parts more than (\d+) deep$/,
		(m) => `The email nests its parts more than ${m[1]} deep; this site looks no deeper for the attachment.`,
	],
	[/^file is empty$/, () => "The file that arrived is empty."],
	[/^not a PDF or TIFF file$/, () => "The file is neither a PDF nor a TIFF image."],
	[/^(PDF|TIFF) has no pages$/, (m) => `The ${m[1]} has no pages.`],
	[
		/^(PDF|TIFF) has more than (\d+) pages$/,
		(m) => `The ${m[1]} has more than ${m[2]} pages, the most this site shows.`,
	],
	[
		/^(PDF|TIFF) page (\d+) is too large$/,
		(m) => `Page ${m[2]} of the ${m[1]} is larger than this site shows.`,
	],
	[/^(PDF|TIFF) page (\d+) is too small$/, (m) => `Page ${m[2]} of the ${m[1]} is too small to show.`],
	[/^TIFF has too many pixels in total$/, () => "The TIFF image has more pixels than this site shows."],
];

/** The reason in a tester's words. */
export function problemWords(reason: string): string {
	for (const [pattern, words] of WORDS) {
		const match = reason.match(pattern);
		if (match) return words(match);
	}
	return "The file could not be read, so there is no image of it.";
}

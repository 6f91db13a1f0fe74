import fc from "fast-check";

/**
 * Generated raw senders in many scripts, Unicode forms and decorations, each
 * with what the masking rules allow to be seen of it, so a test can tell what
 * an answer, a log line or a command's output must never show.
 */
export type SenderCase =
	| {
			kind: "number";
			raw: string;
			/** The sender's digits as ASCII, in order. */
			digits: string;
			/** How a client types it: ASCII digits, no white space. */
			plain: string;
	  }
	| {
			kind: "email";
			raw: string;
			/** The address as a client types it. */
			plain: string;
			/** The only public form: `x***@y***.tld`. */
			masked: string;
			/** Text that must never show: the rest of the local part and domain, names, comments. */
			secrets: string[];
	  };

const SEGMENTER = new Intl.Segmenter(undefined, { granularity: "grapheme" });

// The digit zero of scripts whose decimal digits (Unicode Nd) run 0 to 9 from it;
// full-width, mathematical and segmented digits are NFKC compatibility forms too.
const DIGIT_ZEROS = [
	0x30, 0xff10, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xbe6, 0xe50, 0xf20, 0x1040, 0x1810, 0xa8d0,
	0x1d7ce, 0x1d7f6, 0x1e950, 0x1fbf0,
];
const SUPERSCRIPT_DIGITS = [
	"\u2070",
	"\u00b9",
	"\u00b2",
	"\u00b3",
	"\u2074",
	"\u2075",
	"\u2076",
	"\u2077",
	"\u2078",
	"\u2079",
];
const CIRCLED_DIGITS = [
	"\u24ea",
	"\u2460",
	"\u2461",
	"\u2462",
	"\u2463",
	"\u2464",
	"\u2465",
	"\u2466",
	"\u2467",
	"\u2468",
];

/** One digit (its ASCII value) and how the sender writes it. */
const digit = fc
	.tuple(
		fc.integer({ min: 0, max: 9 }),
		fc.oneof(
			{
				weight: 6,
				arbitrary: fc
					.constantFrom(...DIGIT_ZEROS)
					.map((zero) => (value: number) => String.fromCodePoint(zero + value)),
			},
			{ weight: 1, arbitrary: fc.constant((value: number) => SUPERSCRIPT_DIGITS[value] ?? "") },
			{ weight: 1, arbitrary: fc.constant((value: number) => CIRCLED_DIGITS[value] ?? "") },
		),
	)
	.map(([value, write]) => ({ value: String(value), written: write(value) }));

// White space of several kinds, dashes, dots, brackets and invisible format characters.
const SEPARATOR = fc.constantFrom(
	"",
	"",
	"",
	" ",
	"\u00a0",
	"\u3000",
	"\u2009",
	"-",
	"\u2010",
	"\u2011",
	"\u2013",
	"\uff0d",
	".",
	"/",
	"(",
	")",
	"\uff08",
	"\uff09",
	"\u200b",
	"\u00ad",
	"\u2060",
	"\u200e",
	"\ufeff",
);
const NUMBER_PREFIX = fc.constantFrom(
	"",
	"+",
	"\uff0b",
	"\ufe62",
	"Tel ",
	"FAX ",
	"\u0422\u0435\u043b. ",
	"\u96fb\u8a71 ",
	"\u0647\u0627\u062a\u0641 ",
	"\u03a6\u03b1\u03be ",
	"  ",
);

const number = fc
	.tuple(NUMBER_PREFIX, fc.array(fc.tuple(digit, SEPARATOR), { minLength: 6, maxLength: 15 }), SEPARATOR)
	.map(([prefix, parts, trailing]): SenderCase => {
		const digits = parts.map(([d]) => d.value).join("");
		const raw = `${prefix}${parts.map(([d, separator]) => d.written + separator).join("")}${trailing}`;
		// Dashes, dots and brackets belong to the number (DECISIONS.md); white space and invisible characters do not.
		const visible = (text: string) => text.normalize("NFKC").replace(/[\s\p{Cf}]/gu, "");
		const plain =
			visible(prefix) +
			parts.map(([d, separator]) => d.value + visible(separator)).join("") +
			visible(trailing);
		return { kind: "number", raw, digits, plain };
	});

// Letters a local part or a domain starts with: one grapheme each, also after NFKC and lower-casing.
const FIRST_LETTER = fc.constantFrom(
	..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\uff21\uff22\uff23\uff41\uff42\u00e9\u00c9\u00df\u03b1\u0391\u03c9\u0436\u0416\u044f\u4e2d\u6587\u05d0\u0628\u0915\u3042\u30a2\ud55c",
);
// The rest of local parts and domain labels: letters of many scripts, combining
// accents, digits of several scripts.
const LETTER = fc.constantFrom(
	..."abcdefghijklmnopqrstuvwxyzQXZ\u00e9\u00f1\u00fc\u03b2\u03bb\u0434\u0449\u4e8c\u5b57\u05d1\u062c\u0939\u304b\u30ab\ud558\uff43\uff44",
	"e\u0301",
	"o\u0308",
	"\u0661",
	"\u0967",
	"7",
	"\uff19",
);
const LOCAL_EXTRA = fc.constantFrom(".", "_", "+", "-");
const AT_SIGN = fc.constantFrom("@", "@", "\uff20", "\ufe6b");
const DOT = fc.constantFrom(".", ".", "\uff0e", "\ufe52");
const TOP_LEVEL = fc.constantFrom(
	"org",
	"com",
	"de",
	"ORG",
	"\uff4f\uff52\uff47",
	"\u0440\u0444",
	"\u4e2d\u56fd",
	"xyz",
);

const word = fc.array(LETTER, { minLength: 4, maxLength: 12 }).map((letters) => letters.join(""));
const localPart = fc
	.tuple(
		FIRST_LETTER,
		fc.array(fc.oneof({ weight: 5, arbitrary: LETTER }, LOCAL_EXTRA), { minLength: 5, maxLength: 20 }),
	)
	.map(([first, rest]) => first + rest.join(""));
const domain = fc.tuple(FIRST_LETTER, word, fc.array(word, { maxLength: 2 }), DOT, TOP_LEVEL);

// Display names and comments: words in many scripts, sometimes a phone number.
const nameText = fc
	.array(
		fc.oneof(
			word,
			fc.constantFrom("Secret", "Person", "\u0421\u0435\u043a\u0440\u0435\u0442", "555 867 5309"),
		),
		{
			minLength: 1,
			maxLength: 3,
		},
	)
	.map((words) => words.join(" "));

const DECORATIONS: ((address: string, name: string) => string)[] = [
	(address) => address,
	(address) => `  ${address}  `,
	(address, name) => `${name} <${address}>`,
	(address, name) => `"${name}" <${address}>`,
	(address, name) => `${address} (${name})`,
	(address, name) => `(${name}) ${address}`,
	(address, name) => `${name} <${address}> (${name})`,
	(address, name) => `${address}, ${name}`,
];

const lower = (text: string) => text.normalize("NFKC").toLowerCase();
const firstOf = (text: string) => SEGMENTER.segment(text)[Symbol.iterator]().next().value?.segment ?? "";

const email = fc
	.tuple(localPart, AT_SIGN, domain, nameText, fc.constantFrom(...DECORATIONS))
	.map(([local, at, [domainFirst, label, labels, dot, topLevel], name, decorate]): SenderCase => {
		const domainText = [domainFirst + label, ...labels].join(dot) + dot + topLevel;
		const address = `${local}${at}${domainText}`;
		const plainLocal = lower(local);
		const plainDomain = [domainFirst + label, ...labels].map(lower).join(".");
		return {
			kind: "email",
			raw: decorate(address, name),
			plain: `${plainLocal}@${plainDomain}.${lower(topLevel)}`,
			masked: `${firstOf(plainLocal)}***@${firstOf(plainDomain)}***.${lower(topLevel)}`,
			secrets: [plainLocal, local, plainDomain, label, ...labels, ...name.split(" ")],
		};
	});

export const sender: fc.Arbitrary<SenderCase> = fc.oneof(number, email);

/** Every way a text could show digits: as ASCII, and as each script above writes them. */
function spellings(digits: string): string[] {
	return DIGIT_ZEROS.map((zero) => [...digits].map((d) => String.fromCodePoint(zero + Number(d))).join(""));
}

/**
 * The fragments of a sender that `text` shows although no rule allows it: runs
 * of 4 digits that reach into the masked ones (in any script), and pieces of 4
 * characters of the local part, domain, display name or comment.
 */
export function leaksIn(text: string, sender: SenderCase): string[] {
	const found: string[] = [];
	if (sender.kind === "number") {
		const { digits } = sender;
		// The masked five are the 8th to 4th from the end; only the digits before them may show.
		const firstMasked = Math.max(0, digits.length - 8);
		for (let start = Math.max(0, firstMasked - 3); start + 4 <= digits.length; start++) {
			for (const run of spellings(digits.slice(start, start + 4))) if (text.includes(run)) found.push(run);
		}
		return found;
	}
	const lowered = text.normalize("NFKC").toLowerCase();
	for (const secret of sender.secrets) {
		const graphemes = [...SEGMENTER.segment(lower(secret))].map((part) => part.segment);
		for (let start = 0; start + 4 <= graphemes.length; start++) {
			const piece = graphemes.slice(start, start + 4).join("");
			if (lowered.includes(piece)) found.push(piece);
		}
	}
	return found;
}

/**
 * What `from` must be: for an email the exact masked address; for a number
 * the digits before the masked five, `*****`, and the last three, nothing else.
 */
export function publicFormProblems(from: unknown, sender: SenderCase): string[] {
	if (typeof from !== "string") return [`from is ${JSON.stringify(from)}`];
	if (sender.kind === "email") return from === sender.masked ? [] : [`from ${from} is not ${sender.masked}`];
	const { digits } = sender;
	const parts = from.split("*****");
	if (parts.length !== 2) return [`from ${from} has no single *****`];
	const [before = "", after = ""] = parts;
	const problems: string[] = [];
	const asciiDigits = (text: string) => text.replace(/[^0-9]/g, "");
	if (/(?![0-9])\p{Nd}/u.test(from)) problems.push(`from ${from} has digits of another script`);
	if (asciiDigits(before) !== digits.slice(0, Math.max(0, digits.length - 8)))
		problems.push(`from ${from} shows more before the mask`);
	if (asciiDigits(after) !== digits.slice(-3))
		problems.push(`from ${from} does not end in the last three digits`);
	return problems;
}

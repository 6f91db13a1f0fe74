// A character of a sender is what a reader sees as one: a grapheme cluster,
// never half of a surrogate pair or a letter without its accent.
// Made on first use: making one loads ICU's break rules, over 10 ms of the
// start of every `fax ingest`, most of which never segment a sender.
let segmenter: Intl.Segmenter | undefined;

function segments(text: string): Intl.Segments {
	segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
	return segmenter.segment(text);
}

/** The first character of `text`, or "" for an empty text. */
export function firstGrapheme(text: string): string {
	return segments(text)[Symbol.iterator]().next().value?.segment ?? "";
}

/** `text` cut after its `max`-th character; a shorter text as it is. */
export function cutGraphemes(text: string, max: number): string {
	// A character is at least one UTF-16 unit, so a text this short needs no segmenting.
	if (text.length <= max) return text;
	let count = 0;
	for (const { index } of segments(text)) {
		if (count === max) return text.slice(0, index);
		count++;
	}
	return text;
}

/** Whether `text` has more than `max` characters; segments no further than that. */
export function longerThan(text: string, max: number): boolean {
	return cutGraphemes(text, max).length < text.length;
}

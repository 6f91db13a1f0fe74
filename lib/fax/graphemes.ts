// A "character" of a sender is what a reader sees as one: a grapheme cluster,
// never half of a surrogate pair or a letter without its accent.
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The first character of `text`, or "" for an empty text. */
export function firstGrapheme(text: string): string {
	return segmenter.segment(text)[Symbol.iterator]().next().value?.segment ?? "";
}

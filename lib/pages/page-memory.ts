import { Representation } from "../representation/index.ts";
import type { HtmlPage } from "./html.ts";

/** A page as kept: its HTML as a Representation, and its content security policy. */
export interface KeptPage {
	answer: Representation;
	policy: string;
}

// Pages kept at most, in characters of their HTML: some hundred /faxtest
// states and fax pages. Past it the least recently asked for go first.
const DEFAULT_MAX_CHARS = 16_000_000;

/**
 * Pages made once and answered from memory until what they show changes: the
 * caller's key names that state (a list's ETag, the calls' version, a fax's
 * slug), so a changed state is a new key and the old page is never asked for
 * again. Each is kept with its ETag and compressed forms (Representation).
 */
export class PageMemory {
	readonly #pages = new Map<string, KeptPage>();
	readonly #maxChars: number;
	#chars = 0;

	constructor(maxChars = DEFAULT_MAX_CHARS) {
		this.#maxChars = maxChars;
	}

	/** Pages kept now, for tests of the bound. */
	get size(): number {
		return this.#pages.size;
	}

	/** The page kept under `key`; undefined when none is. */
	kept(key: string): KeptPage | undefined {
		const kept = this.#pages.get(key);
		if (kept === undefined) return undefined;
		// Map order is the order of use: the oldest is the first to go.
		this.#pages.delete(key);
		this.#pages.set(key, kept);
		return kept;
	}

	/** The page kept under `key`, else the one `make` makes, kept from now on. */
	page(key: string, make: () => HtmlPage): KeptPage {
		const kept = this.kept(key);
		if (kept !== undefined) return kept;
		const { html, policy } = make();
		const made = { answer: new Representation(html), policy };
		this.#pages.set(key, made);
		this.#chars += key.length + html.length;
		for (const [oldKey, old] of this.#pages) {
			if (this.#chars <= this.#maxChars || old === made) break;
			this.#pages.delete(oldKey);
			this.#chars -= oldKey.length + old.answer.text.length;
		}
		return made;
	}
}

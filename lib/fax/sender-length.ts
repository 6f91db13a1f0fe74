import { type StringOptions, Type } from "@sinclair/typebox";
import { cutGraphemes, longerThan } from "./graphemes.ts";

/** The longest sender, in characters as a reader counts them (grapheme clusters). */
export const MAX_SENDER_LENGTH = 255;

/** A sender cut to its first 255 characters, never inside one. */
export function cutSender(sender: string): string {
	return cutGraphemes(sender, MAX_SENDER_LENGTH);
}

/**
 * A string schema of at most 255 characters as a reader counts them, not
 * UTF-16 units: an emoji or an accented letter is one. A longer text makes
 * the decode throw; callers turn that throw into their own message.
 */
export function SenderText(options: StringOptions & { errorMessage?: string } = {}) {
	return Type.Transform(Type.String(options))
		.Decode((text) => {
			if (longerThan(text, MAX_SENDER_LENGTH)) {
				throw new Error(`must not be longer than ${MAX_SENDER_LENGTH} characters`);
			}
			return text;
		})
		.Encode((text) => text);
}

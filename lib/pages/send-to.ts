import type { SendTo } from "../config.ts";
import { escapeHtml } from "./html.ts";

/**
 * Where to send a test: the site's fax numbers (calls) and email addresses
 * (scan-to-email and T.37 Internet fax), as the settings file names them;
 * nothing when it names none.
 */
export function sendToPart(sendTo: SendTo): string {
	const rows: string[] = [];
	if (sendTo.numbers.length > 0) {
		const numbers = sendTo.numbers.map(
			(number) => `<a href="tel:${escapeHtml(number.replace(/[^+0-9]/g, ""))}">${escapeHtml(number)}</a>`,
		);
		rows.push(`<dt>Fax by phone</dt><dd>${numbers.join(", ")}</dd>`);
	}
	if (sendTo.addresses.length > 0) {
		const addresses = sendTo.addresses.map(
			(address) => `<a href="mailto:${escapeHtml(address)}">${escapeHtml(address)}</a>`,
		);
		rows.push(`<dt>Scan-to-email or Internet fax (T.37)</dt><dd>${addresses.join(", ")}</dd>`);
	}
	if (rows.length === 0) return "";
	return `<section id="send-to" aria-labelledby="send-to-title">
<h2 id="send-to-title">Where to send a test</h2>
<dl>
${rows.join("\n")}
</dl>
</section>`;
}

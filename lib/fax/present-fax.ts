import type { FaxRow } from "./fax-row.ts";
import type { Fax } from "./fax-schema.ts";
import { maskSender } from "./sender.ts";
import { formatUtcSeconds } from "./time.ts";

export interface PublicUrls {
	cdnBaseUrl: string;
	siteBaseUrl: string;
}

/** Turns a stored row into the public fax: masked sender, absolute addresses. */
export function createFaxPresenter(urls: PublicUrls): (row: FaxRow) => Fax {
	const files = `${urls.cdnBaseUrl}/faxes/`;
	const pages = `${urls.siteBaseUrl}/faxtest/`;
	return (row) => {
		const processed = row.page_count !== null;
		return {
			slug: row.slug,
			source: row.source,
			from: maskSender(row.sender),
			received_at: formatUtcSeconds(row.received_at),
			page_count: row.page_count,
			file_size: row.file_size,
			pdf_url: processed ? `${files}${row.slug}.pdf` : null,
			thumbnail_url: processed ? `${files}${row.slug}-thumb.jpg` : null,
			view_url: `${pages}${row.slug}`,
		};
	};
}

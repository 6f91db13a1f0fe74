/** A stored fax as the store hands it out; `sender` is raw and must be masked for output. */
export interface FaxRow {
	slug: string;
	source: "phone" | "email";
	sender: string | null;
	/** Unix seconds. */
	received_at: number;
	page_count: number | null;
	file_size: number | null;
}

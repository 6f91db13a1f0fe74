export type ProcessedDocument = {
	ok: true;
	/** The PDF to store: the input itself for a PDF, a conversion for a TIFF. */
	pdf: Uint8Array;
	/** JPEG of page 1, THUMBNAIL_WIDTH pixels wide. */
	thumbnail: Uint8Array;
	pageCount: number;
};

export type NotProcessable = {
	ok: false;
	/** Short English sentence for the operator, e.g. "PDF is encrypted". */
	reason: string;
};

export function notProcessable(reason: string): NotProcessable {
	return { ok: false, reason };
}

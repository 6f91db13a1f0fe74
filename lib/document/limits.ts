// Everything an input can make us allocate or spend time on is bounded by one
// of these; an input beyond them is not processable rather than a risk to the
// process.

/**
 * Larger inputs are rejected before any parsing. Callers reading a file can
 * check its size first. It bounds the memory of the costliest case: an email
 * held whole beside the PDF it carries, which we hold once decoded and PDFium
 * once more, beside PDFium's own 50 MB: about 225 MB at this size, under 256
 * MB. 40 MiB is more than most mail servers pass (Postfix: 10 MB by default)
 * and holds a 25 MB attachment, base64-encoded, as large mail services send.
 */
export const MAX_INPUT_BYTES = 40 * 1024 * 1024;

/**
 * An email is read up to this size: a 40 MiB attachment is about 55 MiB in
 * base64 with its line breaks, and the receivers' Postfix refuses messages
 * larger than this (deploy/receivers/install.sh sets message_size_limit to
 * it). Held whole beside its decoded attachment and PDFium's copy, about 250 MB.
 */
export const MAX_EMAIL_BYTES = 60 * 1024 * 1024;

/** A fax, or a scan sent by email, has far fewer pages; each page costs work. */
export const MAX_PAGES = 1000;

/**
 * Pixels of one TIFF frame or one image on the rendered PDF page, checked
 * before decoding: a decompression bomb declares a huge size in a few bytes.
 * 100 MP is an A3 page scanned at 800 dpi; a fine-mode fax page is 4 MP.
 */
export const MAX_PAGE_PIXELS = 100_000_000;

/** libvips writes a whole fax page as one CCITT strip, and a strip is at most this tall. */
export const MAX_PAGE_SIDE_PIXELS = 32_768;

/**
 * CCITT strips of one TIFF frame that go into the PDF as they are, each an
 * image of its own. A frame cut into more (a strip per row, say) is decoded
 * and re-encoded as one, rather than make readers draw hundreds of slivers.
 */
export const MAX_STRIPS_COPIED_PER_PAGE = 256;

/** Pixels of all TIFF frames together: bounds the decoding time of a long fax. */
export const MAX_TOTAL_PIXELS = 2_000_000_000;

/** The page size range the PDF specification allows (ISO 32000-1, annex C), in points. */
export const MIN_PAGE_SIDE_POINTS = 3;
export const MAX_PAGE_SIDE_POINTS = 14_400;

/**
 * What PDFium may allocate in its WebAssembly heap beyond the copy of the PDF
 * it holds. What it inflates while loading page 1 (a content stream can be a
 * decompression bomb too) must fit, or the PDF is not processable.
 */
export const MAX_PDFIUM_WORKING_BYTES = 64 * 1024 * 1024;

/**
 * Width of the JPEG thumbnail of page 1, in pixels: twice the 300 CSS pixels
 * a fax's page shows it at, so dense screens (2×) get it sharp; the list
 * shows it at 104 (docs/decisions.md, "Thumbnails").
 */
export const THUMBNAIL_WIDTH = 600;

/**
 * Shown at half its size, a JPEG's artefacts shrink with it: quality 60 with
 * mozjpeg's tables keeps the 600-pixel thumbnail of a text page near 33 KB,
 * where quality 80 made 63 KB (the 300-pixel one was 19 KB).
 */
export const THUMBNAIL_JPEG = { quality: 60, mozjpeg: true };

/** A very long page is shown by its top part, so the thumbnail stays small. */
export const MAX_THUMBNAIL_HEIGHT = 2400;

import { TIFF_TAG, type TiffDirectory } from "./tiff-directories.ts";

/**
 * How a page's CCITT strips are coded, in the terms of a PDF CCITTFaxDecode
 * filter (ISO 32000-1, 7.4.6), so that the strips can be copied into the PDF
 * as they are.
 */
export type CcittCoding = {
	/** -1 for T.6 (G4), 0 for one-dimensional T.4, positive for two-dimensional T.4. */
	k: number;
	/** Every row starts on a byte boundary. */
	encodedByteAlign: boolean;
	/** The coded white runs are black on the page. */
	blackIs1: boolean;
	/** FillOrder 2: the first bit of the code is the lowest of each byte, and PDF wants the highest. */
	reversedBits: boolean;
};

const COMPRESSION_CCITT_RLE = 2;
const COMPRESSION_CCITT_T4 = 3;
const COMPRESSION_CCITT_T6 = 4;
const T4_TWO_DIMENSIONAL = 1;
// Uncompressed mode, an extension PDF readers do not decode.
const T4_UNCOMPRESSED = 2;
const T6_UNCOMPRESSED = 2;
const FILL_ORDER_LOWEST_BIT_FIRST = 2;
const PHOTOMETRIC_MIN_IS_BLACK = 1;
// Readers take the coding of each row from its tag bit; K only has to be
// positive. T.4 allows at most 4 two-dimensional rows in a row in fine mode.
const K_TWO_DIMENSIONAL = 4;

/** The page's coding, or undefined when it is not CCITT as a PDF can carry it. */
export function ccittCoding(directory: TiffDirectory): CcittCoding | undefined {
	const fillOrder = directory.first(TIFF_TAG.fillOrder) ?? 1;
	if (fillOrder !== 1 && fillOrder !== FILL_ORDER_LOWEST_BIT_FIRST) return undefined;
	const coding = kAndAlignment(directory);
	return (
		coding && {
			...coding,
			blackIs1: directory.first(TIFF_TAG.photometric) === PHOTOMETRIC_MIN_IS_BLACK,
			reversedBits: fillOrder === FILL_ORDER_LOWEST_BIT_FIRST,
		}
	);
}

function kAndAlignment(directory: TiffDirectory): Pick<CcittCoding, "k" | "encodedByteAlign"> | undefined {
	switch (directory.first(TIFF_TAG.compression)) {
		case COMPRESSION_CCITT_RLE:
			// Modified Huffman: T.4's one-dimensional code, no EOLs, each row byte-aligned.
			return { k: 0, encodedByteAlign: true };
		case COMPRESSION_CCITT_T4: {
			const options = directory.first(TIFF_TAG.t4Options) ?? 0;
			if (options & T4_UNCOMPRESSED) return undefined;
			// Fill bits before an EOL need no EncodedByteAlign: readers skip the
			// zero bits before each EOL anyway.
			return { k: options & T4_TWO_DIMENSIONAL ? K_TWO_DIMENSIONAL : 0, encodedByteAlign: false };
		}
		case COMPRESSION_CCITT_T6: {
			const options = directory.first(TIFF_TAG.t6Options) ?? 0;
			if (options & T6_UNCOMPRESSED) return undefined;
			return { k: -1, encodedByteAlign: false };
		}
		default:
			return undefined;
	}
}

import type { ScanFacts } from "./scan-facts.ts";

/**
 * scanFacts (scan-facts.ts), its module loaded at the first scan: it brings
 * PDFium and pdf-lib, which a serving instance never loads, as
 * process-document.ts keeps them out too.
 */
export async function scanFacts(bytes: Uint8Array, format: "pdf" | "tiff"): Promise<ScanFacts> {
	const loaded = await import("./scan-facts.ts");
	return loaded.scanFacts(bytes, format);
}

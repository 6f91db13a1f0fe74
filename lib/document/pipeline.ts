import { errorMessage } from "../util/index.ts";

/**
 * A part of the document pipeline that does not load on this host: a native
 * module npm left out, a library missing. It is the host's fault, never the
 * document's, so a fax that meets it is not listed and is tried again once
 * the host is fixed.
 */
export class PipelineUnavailableError extends Error {
	constructor(
		readonly part: PipelinePart,
		cause: unknown,
	) {
		super(`the document pipeline cannot load ${part}: ${errorMessage(cause).split("\n")[0]}`);
		this.name = "PipelineUnavailableError";
	}
}

export type PipelinePart = "sharp" | "PDFium";

const WASM_FALLBACK = "its native package is missing, and its WebAssembly fallback does not run under Bun";

// Each part is proven by doing what the pipeline does with it: a native
// module can import and still fail at its first call.
const LOADERS: Record<PipelinePart, () => Promise<unknown>> = {
	async sharp() {
		const { default: sharp } = await import("sharp");
		// Without its native package sharp falls back to its WebAssembly build
		// when npm installed that (Debian 12's npm 9.2 does), whose first call
		// blocks a Bun process for ever: refused before any call.
		if ("emscripten" in sharp.versions) throw new Error(WASM_FALLBACK);
		const background = { r: 255, g: 255, b: 255 };
		return sharp({ create: { width: 1, height: 1, channels: 3, background } })
			.jpeg()
			.toBuffer();
	},
	async PDFium() {
		const { pdfium } = await import("./pdfium.ts");
		return pdfium();
	},
};

const loaded = new Set<PipelinePart>();

/** Loads the parts a document needs; throws PipelineUnavailableError naming the first that does not load. */
export async function requireParts(parts: readonly PipelinePart[]): Promise<void> {
	for (const part of parts) {
		if (loaded.has(part)) continue;
		try {
			await LOADERS[part]();
		} catch (error) {
			throw new PipelineUnavailableError(part, error);
		}
		loaded.add(part);
	}
}

export const ALL_PARTS: readonly PipelinePart[] = ["sharp", "PDFium"];

/** What a readiness check or `fax check` says of the pipeline: null when every part loads. */
export async function pipelineFault(): Promise<string | null> {
	try {
		await requireParts(ALL_PARTS);
		return null;
	} catch (error) {
		return errorMessage(error);
	}
}

/**
 * A failure of the host met while processing (out of memory, a file
 * descriptor or disk limit: errors with an errno code), as against what is
 * wrong with the document.
 */
export function isHostFault(error: unknown): boolean {
	if (error instanceof PipelineUnavailableError) return true;
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && /^E[A-Z]+$/.test(code);
}

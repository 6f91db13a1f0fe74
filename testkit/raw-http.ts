import { brotliDecompressSync, gunzipSync } from "node:zlib";

/** An HTTP answer as it came over the wire. */
export interface RawAnswer {
	/** 0 when the server closed the connection without answering. */
	status: number;
	/** Header names in lower case; a repeated header's values joined by ", ". */
	headers: Record<string, string>;
	/** As text, decoded from its Content-Encoding (br, gzip) when it has one. */
	body: string;
	/** Everything received, as text. */
	raw: string;
}

const NO_ANSWER: Omit<RawAnswer, "raw"> = { status: 0, headers: {}, body: "" };

/** Splits the first answer in `raw` into status, headers and body. */
export function parseAnswer(raw: string): RawAnswer {
	const end = raw.indexOf("\r\n\r\n");
	if (!raw.startsWith("HTTP/") || end === -1) return { ...NO_ANSWER, raw };
	const [statusLine = "", ...lines] = raw.slice(0, end).split("\r\n");
	const headers: Record<string, string> = {};
	for (const line of lines) {
		const colon = line.indexOf(":");
		const name = line.slice(0, colon).trim().toLowerCase();
		const value = line.slice(colon + 1).trim();
		headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
	}
	return { status: Number(statusLine.split(" ")[1]), headers, body: raw.slice(end + 4), raw };
}

/**
 * Sends `request` byte for byte over a new TCP connection and returns what
 * comes back until the server closes it or `timeoutMs` passes. The request
 * should ask for `Connection: close`; fetch() cannot send what these tests
 * need (a short, missing or odd Host, an unknown method, broken syntax).
 */
export async function rawExchange(
	port: number,
	request: string | Uint8Array,
	options: { hostname?: string; timeoutMs?: number } = {},
): Promise<RawAnswer> {
	const chunks: Uint8Array[] = [];
	const { promise, resolve } = Promise.withResolvers<void>();
	const socket = await Bun.connect({
		hostname: options.hostname ?? "127.0.0.1",
		port,
		socket: {
			data: (_, data) => {
				chunks.push(new Uint8Array(data));
			},
			close: () => resolve(),
			error: () => resolve(),
			end: () => resolve(),
		},
	});
	socket.write(request);
	const timer = setTimeout(resolve, options.timeoutMs ?? 5000);
	await promise;
	clearTimeout(timer);
	socket.end();
	const bytes = Buffer.concat(chunks);
	const answer = parseAnswer(new TextDecoder().decode(bytes));
	const coding = answer.headers["content-encoding"];
	const body = bytes.subarray(bytes.indexOf("\r\n\r\n") + 4);
	// A HEAD answer names the coding of the body it leaves out.
	if (coding === undefined || body.length === 0) return answer;
	return { ...answer, body: decoded(coding, body) };
}

/** A body in its content coding as text; a coding that does not decode says so in place of the body. */
function decoded(coding: string, body: Uint8Array): string {
	try {
		if (coding === "br") return new TextDecoder().decode(brotliDecompressSync(body));
		if (coding === "gzip") return new TextDecoder().decode(gunzipSync(body));
	} catch (error) {
		return `(a ${coding} body that does not decode: ${error})`;
	}
	return `(a body in the unknown coding ${coding})`;
}

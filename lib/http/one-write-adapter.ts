import type { ElysiaAdapter } from "elysia";

// Bun 1.4.5 corks a response that completes after an await (here: after the
// Redis round trip of the rate limit) only when its body is shorter than
// 15 KiB (16 KiB of cork buffer less 1 KiB). A longer one goes out uncorked,
// one send() per fragment: the status line, each header's name, ": ", value
// and CRLF, then the body, some 56 send() calls for an answer with our 13
// headers, which then stall behind each other on the socket buffers (the
// 31 KB poll of 100 faxes: 2,900 answers/s with Redis against 22,800 without).
// Upstream: oven-sh/bun pull request 41341, "Cork every HttpResponse write so
// post-await responses leave in one send()", open and unreleased.
//
// A direct ReadableStream body whose bytes are all buffered before it ends
// leaves through the stream sink's own corked write, framed by Content-Length
// exactly as a string body is: status line, headers and body in one send().
// Only GET: to a HEAD such a body is announced as chunked, and a HEAD has no
// body to send anyway. test/http/one-write.test.ts counts the send() calls of
// both ways with strace.

/** Bun corks bodies shorter than this many bytes itself (16 KiB of cork buffer less 1 KiB; 15,000 corked, 15,800 not, measured). */
const CORKED_BYTES = 15 * 1024;
// A string of fewer UTF-16 code units than this has fewer bytes than
// CORKED_BYTES however it encodes (at most 3 bytes a unit), so only longer
// strings need their byte length measured.
const SURELY_SHORT_UNITS = CORKED_BYTES / 3;
// Above every body the API answers, so the sink buffers the whole body until it ends.
const SINK_BUFFER_BYTES = 64 * 1024 * 1024;

function needsOneWrite(body: unknown): body is string | Uint8Array {
	if (typeof body === "string")
		return body.length >= SURELY_SHORT_UNITS && Buffer.byteLength(body) >= CORKED_BYTES;
	return body instanceof Uint8Array && body.byteLength >= CORKED_BYTES;
}

/**
 * A body that leaves in one write with the headers, framed by Content-Length:
 * the sink takes every byte before it ends, so it ends with the length known.
 */
export function oneWriteBody(body: string | Uint8Array): ReadableStream {
	const source: Bun.DirectUnderlyingSource = {
		type: "direct",
		pull(sink) {
			// `start` takes the sink's options, which bun-types does not declare.
			(sink as unknown as { start(options: { highWaterMark: number }): void }).start({
				highWaterMark: SINK_BUFFER_BYTES,
			});
			sink.write(body);
			sink.end();
		},
	};
	return new ReadableStream(source);
}

/** `body` as Bun.serve should get it to write it in one piece after an await. */
export function oneWriteReady(body: string | Uint8Array): string | Uint8Array | ReadableStream {
	return needsOneWrite(body) ? oneWriteBody(body) : body;
}

type AnswerSet = { status?: number | string; headers: Record<string, string | number> };

/**
 * `adapter` with the answers Elysia builds from a string or bytes (route
 * results and early answers; error answers are short) given a one-write body
 * where Bun 1.4.5 would write them uncorked.
 */
export function oneWriteAdapter(adapter: ElysiaAdapter): ElysiaAdapter {
	const { mapResponse, mapEarlyResponse } = adapter.handler;
	const wrap =
		<F extends (response: unknown, set: AnswerSet, request?: Request) => unknown>(map: F) =>
		(response: unknown, set: AnswerSet, request?: Request) =>
			request?.method === "GET" && typeof set.status !== "string" && needsOneWrite(response)
				? new Response(oneWriteBody(response), set as ResponseInit)
				: map(response, set, request);
	return {
		...adapter,
		handler: {
			...adapter.handler,
			mapResponse: wrap(mapResponse as never),
			mapEarlyResponse: wrap(mapEarlyResponse as never),
		},
	} as ElysiaAdapter;
}

import type { ElysiaAdapter } from "elysia";

type AnswerSet = { status?: number | string; headers: Record<string, string | number> };

/**
 * `adapter` with a file body (a Blob, or a stream of a file's bytes) sent
 * with exactly the status and fields the app set. Elysia 1.4.30 answers a Blob body itself (its handleFile): it reads
 * `Range` again, so a range the app chose not to answer (after `If-Range`,
 * for more than one range, on a HEAD) is answered anyway, sets a 206 or 416
 * the app never sees (the access log said 200), and adds `Content-Range` to
 * every 200. lib/http/file-answer.ts decides all of that instead.
 */
function headless(body: Blob | ReadableStream, request: Request | undefined): Blob | ReadableStream | null {
	if (request?.method !== "HEAD" || body instanceof Blob) return body;
	// Without a body Bun keeps the Content-Length set, which it drops beside a stream.
	void body.cancel();
	return null;
}

export function fileAsSetAdapter(adapter: ElysiaAdapter): ElysiaAdapter {
	const { mapResponse } = adapter.handler;
	return {
		...adapter,
		handler: {
			...adapter.handler,
			mapResponse: (response: unknown, set: AnswerSet, request?: Request) =>
				response instanceof Blob || response instanceof ReadableStream
					? new Response(headless(response, request), set as ResponseInit)
					: (mapResponse as (response: unknown, set: AnswerSet, request?: Request) => unknown)(
							response,
							set,
							request,
						),
		},
	} as ElysiaAdapter;
}

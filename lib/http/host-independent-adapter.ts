import type { ElysiaAdapter } from "elysia";
import { BunAdapter } from "elysia/adapter/bun";

// Elysia 1.4.30 finds the path in request.url with u.indexOf('/', 11) (7
// with handler.standardHostname: false), assuming an absolute URL whose host
// has 4 characters or more. Bun's request.url carries the Host header as its
// host ("http://api/api/faxes/x": the path is taken to be "/faxes/x") and is
// relative ("/api/faxes/x") when the Host header is missing (HTTP/1.0) or no
// valid host. Any method Bun does not route itself then hit the wrong route:
// DELETE /api/faxes/x with `Host: api` was a 404 without rate-limit headers,
// GET /x/api/faxes a 200. Seen in Elysia 1.4.30; the upstream report to file
// (this machine cannot reach GitHub): "the general handler takes the path from
// the 12th character of request.url, which is wrong for hosts of 3 characters
// or fewer and for relative URLs".
const ELYSIA_PATH_START = /s=u\.indexOf\('\/',(?:11|7)\)/;
// The host of an absolute URL holds no "/" (Bun makes the URL relative then).
const PATH_START = "s=u.charCodeAt(0)===47?0:u.indexOf('/',7)";

const general = BunAdapter.composeGeneralHandler;

/** Bun's adapter, with the path of a request found whatever its Host header. */
export const hostIndependentAdapter: ElysiaAdapter = {
	...BunAdapter,
	composeGeneralHandler: {
		...general,
		createContext(app) {
			const code = general.createContext(app);
			if (!ELYSIA_PATH_START.test(code)) {
				throw new Error("Elysia no longer finds the path as lib/http/host-independent-adapter.ts expects");
			}
			return code.replace(ELYSIA_PATH_START, PATH_START);
		},
	},
};

import { readFileSync } from "node:fs";
import { definePlainRoute } from "../../lib/http/index.ts";
import { REDOC_MAP_FILE } from "../../lib/pages/index.ts";
import { Representation } from "../../lib/representation/index.ts";

// 3.9 MB that only a browser's developer tools ask for: read on first asking.
let map: Representation | undefined;

/**
 * GET /docs/redoc.standalone.js.map: the source map the bundle names, so
 * developer tools show Redoc's sources instead of an error. The bundle's
 * replacements keep their lengths, so the map still fits it.
 */
export const route = definePlainRoute(() => {
	map ??= new Representation(readFileSync(REDOC_MAP_FILE, "utf8"));
	return { status: 200, body: map, type: "application/json; charset=utf-8" };
});

import type { Route } from "../lib/http/index.ts";
import { route as healthz } from "./admin/healthz.ts";
import { route as metrics } from "./admin/metrics.ts";
import { route as readyz } from "./admin/readyz.ts";
import { route as faxBySlug } from "./api/faxes/[slug].ts";
import { route as faxList } from "./api/faxes/index.ts";
import { route as faxFile } from "./cdn/faxes/[file].ts";
import { route as apiGuide } from "./docs/API.md.ts";
import { route as docsPage } from "./docs/index.ts";
import { route as interactiveDocsPage } from "./docs/interactive.ts";
import { route as docsRendererMap } from "./docs/redoc.standalone.js.map.ts";
import { route as docsRenderer } from "./docs/redoc.standalone.js.ts";
import { route as redocLogo } from "./docs/redoc-sidebar-attribution-logo.svg.ts";
import { route as favicon } from "./favicon.svg.ts";
import { route as faxPage } from "./faxtest/[slug].ts";
import { route as callStream } from "./faxtest/calls.ts";
import { route as livePage } from "./faxtest/index.ts";
import { route as liveScript } from "./faxtest/live.js.ts";
import { route as outcomes } from "./faxtest/outcomes.ts";
import { route as apiDescription } from "./openapi.json.ts";
import { route as robots } from "./robots.txt.ts";

/**
 * Every file under routes/ and the route it exports, keyed by its path relative to
 * routes/; the URL path is derived from that key (lib/http/route-path.ts). A static
 * list keeps `bun build` able to see every handler; a test checks it against the
 * files on disk, so adding an endpoint is adding a file and its line here.
 * Files under admin/ are served on the admin listener only, at the path below
 * admin/ (`admin/healthz.ts` → `/healthz` on ADMIN_PORT).
 */
export const ROUTE_FILES: Record<string, Route> = {
	"api/faxes/index.ts": faxList,
	"api/faxes/[slug].ts": faxBySlug,
	"cdn/faxes/[file].ts": faxFile,
	"openapi.json.ts": apiDescription,
	"docs/index.ts": docsPage,
	"docs/API.md.ts": apiGuide,
	"docs/interactive.ts": interactiveDocsPage,
	"docs/redoc.standalone.js.ts": docsRenderer,
	"docs/redoc.standalone.js.map.ts": docsRendererMap,
	"docs/redoc-sidebar-attribution-logo.svg.ts": redocLogo,
	"favicon.svg.ts": favicon,
	"faxtest/[slug].ts": faxPage,
	"faxtest/index.ts": livePage,
	"faxtest/calls.ts": callStream,
	"faxtest/live.js.ts": liveScript,
	"faxtest/outcomes.ts": outcomes,
	"robots.txt.ts": robots,
	"admin/healthz.ts": healthz,
	"admin/readyz.ts": readyz,
	"admin/metrics.ts": metrics,
};

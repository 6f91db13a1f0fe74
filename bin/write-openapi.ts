// Writes openapi.json, the description of the API, from the routes' schemas:
// `bun run openapi` after a change to an endpoint, its schemas or its headers.
import { join } from "node:path";
import { apiDescriptionText } from "../lib/openapi/index.ts";
import { ROUTE_FILES } from "../routes/manifest.ts";

const file = join(import.meta.dir, "..", "openapi.json");
await Bun.write(file, apiDescriptionText(ROUTE_FILES));
console.log(`wrote ${file}`);

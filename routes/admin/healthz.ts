import { defineAdminRoute } from "../../lib/http/index.ts";

const ALIVE = { status: 200, body: '{"status":"ok"}' };

/** GET /healthz on the admin listener: 200 while the process runs and its event loop turns. */
export const route = defineAdminRoute(() => ALIVE);

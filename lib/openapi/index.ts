// The OpenAPI description of the API, generated from the schemas the routes validate with.
export { API_VERSION, apiDescriptionText, buildApiDescription } from "./build.ts";

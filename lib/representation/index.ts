// An answer's content with its ETag and compressed forms, and the request fields that choose between them.
export { preferredCoding } from "./accept-encoding.ts";
export { noneMatchHits } from "./if-none-match.ts";
export { CODINGS, type Coding, Representation } from "./representation.ts";

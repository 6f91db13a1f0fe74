import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Json = { [key: string]: unknown };

/** Where the repository keeps the description; tests check it is the generated one. */
export const DESCRIPTION_FILE = join(import.meta.dir, "..", "openapi.json");

const description = (await Bun.file(DESCRIPTION_FILE).json()) as Json;
const components = description.components as Json;

/** Strict: a keyword no JSON Schema knows (one of ours leaking through) fails the compile. */
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
// Lets `#/components/...` references resolve inside each schema compiled on its own.
ajv.addKeyword({ keyword: "components" });

const compiled = new Map<unknown, ValidateFunction>();

// Tests that poll see the same bodies again and again; a body text that passed
// its schema once passes again, so it is not parsed and checked twice.
const conformingBodies = new Map<ValidateFunction, Set<string>>();
const MAX_REMEMBERED_BODIES = 1000;

/** A validator for one schema of the description; references into its components resolve. */
export function schemaValidator(schema: Json): ValidateFunction {
	let validate = compiled.get(schema);
	if (validate === undefined) {
		validate = ajv.compile({ ...schema, components });
		compiled.set(schema, validate);
	}
	return validate;
}

function resolve(node: Json): Json {
	const ref = node.$ref;
	if (typeof ref !== "string") return node;
	return ref
		.replace(/^#\//, "")
		.split("/")
		.reduce((at: Json, key) => at[key] as Json, description);
}

interface Operation {
	pattern: RegExp;
	responses: Record<string, Json>;
}

const operations: Operation[] = Object.entries(description.paths as Record<string, Json>).flatMap(
	([path, item]) => {
		const get = item.get as Json | undefined;
		if (get === undefined) return [];
		const pattern = new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}$`);
		return [{ pattern, responses: get.responses as Record<string, Json> }];
	},
);

/** A header's text as its schema's type: the description's integers arrive as digits. */
function headerValue(text: string, schema: Json): unknown {
	if (schema.type === "integer" || schema.type === "number")
		return /^-?\d+$/.test(text) ? Number(text) : text;
	return text;
}

/**
 * The body as text. fetch decodes a compressed body and leaves
 * Content-Encoding in place; one fetched with `decompress: false` (`encoded`)
 * is decoded here.
 */
async function bodyText(response: Response, encoded: boolean): Promise<string> {
	const coding = response.headers.get("content-encoding");
	if (coding === null || !encoded) return response.clone().text();
	const bytes = new Uint8Array(await response.clone().arrayBuffer());
	return (coding === "br" ? brotliDecompressSync(bytes) : gunzipSync(bytes)).toString();
}

function errorsOf(validate: ValidateFunction): string {
	return ajv.errorsText(validate.errors, { separator: "; ", dataVar: "value" });
}

/**
 * The ways an answer departs from the description: its status, each header the
 * description names, its media type and its body. Empty when it conforms, or
 * when the request was none the description covers (a path or method outside
 * the API). HEAD is checked as the GET it mirrors, without a body; an answer
 * described without content (the 304) must come without one.
 */
export async function answerProblems(
	method: string,
	url: string,
	response: Response,
	encoded = false,
): Promise<string[]> {
	if (method !== "GET" && method !== "HEAD") return [];
	const path = new URL(url).pathname;
	const operation = operations.find((candidate) => candidate.pattern.test(path));
	if (operation === undefined) return [];
	const documented = operation.responses[String(response.status)];
	if (documented === undefined) return [`status ${response.status} is not described`];
	const answer = resolve(documented);
	const problems: string[] = [];
	for (const [name, reference] of Object.entries((answer.headers ?? {}) as Record<string, Json>)) {
		const header = resolve(reference);
		const text = response.headers.get(name);
		if (text === null) {
			if (header.required === true) problems.push(`header ${name} is missing`);
			continue;
		}
		const validate = schemaValidator(header.schema as Json);
		if (!validate(headerValue(text, header.schema as Json))) {
			problems.push(`header ${name}: "${text}" ${errorsOf(validate)}`);
		}
	}
	if (answer.content === undefined) {
		const body = await bodyText(response, encoded);
		return body === "" ? problems : [...problems, "a body where none is described"];
	}
	const content = answer.content as Record<string, Json>;
	const type = response.headers.get("content-type")?.split(";")[0]?.trim() ?? "";
	const media = content[type];
	if (media === undefined) return [...problems, `content type "${type}" is not described`];
	if (method === "HEAD") return problems;
	const text = await bodyText(response, encoded);
	const validate = schemaValidator(media.schema as Json);
	const seen = conformingBodies.get(validate) ?? new Set<string>();
	if (seen.has(text)) return problems;
	let body: unknown = text;
	if (type === "application/json") {
		try {
			body = JSON.parse(text);
		} catch {
			return [...problems, `body is not JSON: ${text.slice(0, 200)}`];
		}
	}
	if (!validate(body)) return [...problems, `body ${errorsOf(validate)}`];
	if (seen.size >= MAX_REMEMBERED_BODIES) seen.clear();
	seen.add(text);
	conformingBodies.set(validate, seen);
	return problems;
}

/** Throws when an answer departs from the description, naming the request and every problem. */
export async function assertDescribed(
	method: string,
	url: string,
	response: Response,
	encoded = false,
): Promise<void> {
	const problems = await answerProblems(method, url, response, encoded);
	if (problems.length > 0) {
		throw new Error(
			`${method} ${url} answered ${response.status} against openapi.json:\n  ${problems.join("\n  ")}`,
		);
	}
}

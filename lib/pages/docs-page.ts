import { marked } from "marked";
import { escapeHtml, type HtmlPage, htmlPage } from "./html.ts";

/** Where the same description is rendered by Redoc, with its schemas and samples. */
export const INTERACTIVE_DOCS_PATH = "/docs/interactive";

/** The parts of an OpenAPI 3.1 description this page shows. */
interface Description {
	info: { title: string; version: string; description: string };
	paths: Record<string, Record<string, Operation>>;
	components: { schemas: Record<string, Schema> };
}
interface Operation {
	summary: string;
	description?: string;
	parameters?: { name: string; in: string; required?: boolean; description?: string }[];
	responses: Record<string, { description: string }>;
}
interface Schema {
	description?: string;
	properties?: Record<string, { type?: string | string[]; description?: string }>;
}

const DESCRIPTION =
	"The testfax API: a public, read-only JSON API that lists the test faxes of a fax test site. Endpoints, parameters, answers and the fax object.";

// The description's Markdown is ours (lib/openapi), so its HTML is taken as it comes.
const markdown = (text: string) => marked.parse(text) as string;
const inline = (text: string) => marked.parseInline(text) as string;

function parametersPart(operation: Operation): string {
	const parameters = operation.parameters ?? [];
	if (parameters.length === 0) return "";
	const items = parameters.map(
		(parameter) =>
			`<dt><code>${escapeHtml(parameter.name)}</code> <span class="where">${escapeHtml(parameter.in)}, ${parameter.required ? "required" : "optional"}</span></dt>
<dd>${inline(parameter.description ?? "")}</dd>`,
	);
	return `<h4>Parameters</h4>\n<dl class="fields">\n${items.join("\n")}\n</dl>`;
}

function answersPart(operation: Operation): string {
	const items = Object.entries(operation.responses).map(
		([status, answer]) => `<dt>${escapeHtml(status)}</dt>\n<dd>${inline(answer.description)}</dd>`,
	);
	return `<h4>Answers</h4>\n<dl class="fields">\n${items.join("\n")}\n</dl>`;
}

/** A path's GET; its HEAD, the same without body, is named in one line. */
function endpointPart(path: string, methods: Record<string, Operation>): string {
	const get = methods.get;
	if (get === undefined) return "";
	const head =
		methods.head === undefined
			? ""
			: `<p><code>HEAD ${escapeHtml(path)}</code>: the same status and headers, no body.</p>`;
	return `<section>
<h3><code>GET ${escapeHtml(path)}</code>: ${escapeHtml(get.summary)}</h3>
${markdown(get.description ?? "")}
${head}
${parametersPart(get)}
${answersPart(get)}
</section>`;
}

function schemaPart(name: string, schema: Schema): string {
	const fields = Object.entries(schema.properties ?? {}).map(([field, property]) => {
		const type = [property.type ?? []].flat().join(" or ");
		return `<dt><code>${escapeHtml(field)}</code> <span class="where">${escapeHtml(type)}</span></dt>
<dd>${inline(property.description ?? "")}</dd>`;
	});
	return `<section>
<h3>${escapeHtml(name)}</h3>
${markdown(schema.description ?? "")}
<dl class="fields">\n${fields.join("\n")}\n</dl>
</section>`;
}

/**
 * GET /docs: the API description as a page of its own, made on the server
 * from the description itself: readable at once, with no script (Redoc's
 * renderer, 1.1 MB, is one link away at INTERACTIVE_DOCS_PATH).
 */
export function docsPage(descriptionJson: string): HtmlPage {
	const description = JSON.parse(descriptionJson) as Description;
	const { info } = description;
	const endpoints = Object.entries(description.paths).map(([path, methods]) => endpointPart(path, methods));
	const schemas = Object.entries(description.components.schemas).map(([name, schema]) =>
		schemaPart(name, schema),
	);
	const body = `<main>
<h1>${escapeHtml(info.title)} ${escapeHtml(info.version)}</h1>
<p><a href="${INTERACTIVE_DOCS_PATH}">Interactive reference</a> (Redoc: schemas and samples) ·
<a href="/openapi.json">openapi.json</a> (OpenAPI 3.1) · <a href="/docs/API.md">docs/API.md</a> (the guide for API users)</p>
${markdown(info.description)}
<h2>Endpoints</h2>
${endpoints.join("\n")}
<h2>Objects</h2>
${schemas.join("\n")}
</main>
<footer>
<p><a href="/faxtest">Test faxes of the last 24 hours</a></p>
</footer>`;
	return htmlPage(`${info.title} documentation`, body, { description: DESCRIPTION });
}

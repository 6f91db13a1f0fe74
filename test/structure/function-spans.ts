import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	type Expression,
	isCallExpression,
	isFunctionLikeDeclaration,
	isIdentifier,
	isPropertyAccessExpression,
	type Node,
	type SourceFile,
	SyntaxKind,
} from "typescript/unstable/ast";
import { API } from "typescript/unstable/async";

/** A function-like node: where it starts (1-based line), what it is called, how many lines it spans. */
export interface FunctionSpan {
	file: string;
	line: number;
	name: string;
	lines: number;
}

/**
 * Parses the files (relative to root) with the TypeScript compiler, and `samples` (name -> text) as files of
 * a temporary folder. The project is a tsconfig of that folder, so .mjs/.js files are parsed beside the .ts
 * ones and neither imports nor libraries are read.
 */
export async function parseFiles(
	root: string,
	files: string[],
	samples: Record<string, string> = {},
): Promise<Map<string, SourceFile>> {
	const dir = await mkdtemp(join(tmpdir(), "function-spans-"));
	try {
		const paths = new Map(files.map((file) => [file, join(root, file)]));
		for (const [name, text] of Object.entries(samples)) {
			paths.set(name, join(dir, name));
			await writeFile(join(dir, name), text);
		}
		const config = join(dir, "tsconfig.json");
		const compilerOptions = { allowJs: true, noLib: true, noResolve: true, types: [] };
		await writeFile(config, JSON.stringify({ compilerOptions, files: [...paths.values()] }));
		return await parseProject(root, config, paths);
	} finally {
		await rm(dir, { recursive: true });
	}
}

/** The source file of each name in `paths` (name -> absolute path) that the project holds. */
async function parseProject(root: string, config: string, paths: Map<string, string>) {
	const api = new API({ cwd: root });
	try {
		const program = (await api.updateSnapshot({ openProject: config })).getProject(config)?.program;
		const parsed = await Promise.all([...paths.values()].map((path) => program?.getSourceFile(path)));
		return new Map([...paths.keys()].flatMap((name, i) => (parsed[i] ? [[name, parsed[i]] as const] : [])));
	} finally {
		await api.close();
	}
}

/**
 * The function-like nodes of the file that span more than `limit` lines, outermost first. A node that spans
 * no more (counted from its leading comments on) cannot hold a longer one, so the walk does not go into it.
 */
export function longFunctions(file: string, source: SourceFile, limit: number): FunctionSpan[] {
	const spans: FunctionSpan[] = [];
	const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
	const visit = (node: Node): void => {
		if (lineOf(node.end) - lineOf(node.pos) + 1 <= limit) return;
		if (isFunctionLikeDeclaration(node) && !isDescribeBody(node)) {
			const line = lineOf(node.getStart(source));
			const lines = lineOf(node.end) - line + 1;
			if (lines > limit) spans.push({ file, line, name: nameOf(node, source), lines });
		}
		node.forEachChild(visit);
	};
	source.forEachChild(visit);
	return spans;
}

/** `path:line name N lines`, as a failure lists it. */
export function describeSpan(span: FunctionSpan): string {
	return `${span.file}:${span.line} ${span.name} ${span.lines} lines`;
}

/**
 * The callback given to `describe(...)`, `describe.each(...)(...)`, `describe.if(...)(...)` etc. only groups
 * tests, each read on its own, rather than being code one reads at once. A function in the head of one
 * (`describe.if(() => ...)(...)`) and the callbacks of `test`, `it` and the hooks are code like any other.
 */
function isDescribeBody(node: Node): boolean {
	const call = node.parent;
	if (!isCallExpression(call) || !call.arguments.some((argument) => argument === node)) return false;
	if (isCallExpression(call.parent) && call.parent.expression === call) return false;
	const callee = calleeLabel(call.expression);
	return callee === "describe" || callee.startsWith("describe.");
}

function nameOf(node: Node, source: SourceFile): string {
	if (node.kind === SyntaxKind.Constructor) return "constructor";
	const own = (node as { name?: Node }).name ?? (node.parent as { name?: Node }).name;
	if (own) return own.getText(source);
	return isCallExpression(node.parent) ? `${calleeLabel(node.parent.expression)}(…) callback` : "(anonymous)";
}

/** The callee as `describe.each(…)`: its names, with the arguments of calls left out. */
function calleeLabel(expression: Expression): string {
	if (isIdentifier(expression)) return expression.text;
	if (isCallExpression(expression)) return `${calleeLabel(expression.expression)}(…)`;
	if (!isPropertyAccessExpression(expression)) return "…";
	return `${calleeLabel(expression.expression)}.${expression.name.text}`;
}

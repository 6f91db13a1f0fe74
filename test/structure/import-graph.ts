import { dirname, join, normalize, relative } from "node:path";
import { sourceFiles } from "./source-files.ts";

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)["'](\.{1,2}\/[^"']+)["']/gm;

/** Each source file (relative to `root`) and the project files it imports, statically or dynamically. */
export async function importGraph(root: string, folders: string[]): Promise<Map<string, string[]>> {
	const graph = new Map<string, string[]>();
	for (const file of await sourceFiles(root, folders, "ts")) {
		const text = await Bun.file(join(root, file)).text();
		const targets = [...text.matchAll(IMPORT)].map((match) => normalize(join(dirname(file), match[1] ?? "")));
		graph.set(file, targets);
	}
	return graph;
}

/**
 * The unit a module belongs to: `lib/<folder>` for files in a folder of lib,
 * the file itself for files at the top of lib, the top folder otherwise.
 */
export function unitOf(file: string): string {
	const parts = file.split("/");
	if (parts[0] === "lib") return parts.length > 2 ? `lib/${parts[1]}` : file;
	return parts[0] ?? file;
}

/** The graph of units: an edge wherever a file of one imports a file of another. */
export function unitGraph(files: Map<string, string[]>): Map<string, string[]> {
	const units = new Map<string, Set<string>>();
	for (const [file, targets] of files) {
		const from = unitOf(file);
		const edges = units.get(from) ?? new Set<string>();
		for (const target of targets) if (unitOf(target) !== from) edges.add(unitOf(target));
		units.set(from, edges);
	}
	return new Map([...units].map(([unit, edges]) => [unit, [...edges].sort()]));
}

/** Every cycle's members (strongly connected components of more than one node, or a self-loop), by Tarjan. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
	let next = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const cycles: string[][] = [];
	const visit = (node: string) => {
		index.set(node, next);
		low.set(node, next);
		next++;
		stack.push(node);
		onStack.add(node);
		for (const target of graph.get(node) ?? []) {
			if (!index.has(target)) {
				visit(target);
				low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
			} else if (onStack.has(target)) {
				low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
			}
		}
		if (low.get(node) !== index.get(node)) return;
		const members: string[] = [];
		for (;;) {
			const member = stack.pop() ?? node;
			onStack.delete(member);
			members.push(member);
			if (member === node) break;
		}
		if (members.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(members.sort());
	};
	for (const node of graph.keys()) if (!index.has(node)) visit(node);
	return cycles;
}

/** Imports that reach past a lib folder's entry file into its other files from outside it. */
export function importsPastEntry(files: Map<string, string[]>): string[] {
	const found: string[] = [];
	for (const [file, targets] of files) {
		for (const target of targets) {
			const unit = unitOf(target);
			const isFolder = unit.startsWith("lib/") && !unit.endsWith(".ts");
			if (isFolder && unitOf(file) !== unit && target !== `${unit}/index.ts`) {
				found.push(`${file} → ${relative(".", target)}`);
			}
		}
	}
	return found;
}

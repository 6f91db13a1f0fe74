import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { cyclesOf, importGraph, importsPastEntry, unitGraph } from "./import-graph.ts";

const ROOT = join(import.meta.dir, "../..");
const files = await importGraph(ROOT, ["lib", "routes", "bin", "bench", "testkit"]);
const units = unitGraph(files);

describe("the import graph of lib/, routes/, bin/, bench/ and testkit/", () => {
	test("has no cycle between files", () => {
		expect(cyclesOf(files)).toEqual([]);
	});

	test("has no cycle between lib folders, lib's top files and routes/", () => {
		expect(cyclesOf(units)).toEqual([]);
	});

	test("reaches into a lib folder only through its index.ts", () => {
		expect(importsPastEntry(files)).toEqual([]);
	});

	test("lets the fax domain and the small helpers depend on nothing else of ours", () => {
		expect(units.get("lib/fax")).toEqual([]);
		expect(units.get("lib/util")).toEqual([]);
	});

	test("keeps the database under the HTTP layer and the HTTP layer under the routes", () => {
		expect(units.get("lib/db")).toEqual(["lib/fax", "lib/util"]);
		expect(units.get("lib/http")).not.toContain("routes");
		expect(units.get("lib/server.ts")).toContain("routes");
	});
});

describe("the cycle finder", () => {
	test("finds a cycle through three nodes and a self-loop, and nothing in a tree", () => {
		const graph = new Map([
			["a", ["b"]],
			["b", ["c"]],
			["c", ["a", "d"]],
			["d", []],
			["e", ["e"]],
		]);
		expect(cyclesOf(graph)).toEqual([["a", "b", "c"], ["e"]]);
		expect(
			cyclesOf(
				new Map([
					["x", ["y", "z"]],
					["y", ["z"]],
					["z", []],
				]),
			),
		).toEqual([]);
	});
});

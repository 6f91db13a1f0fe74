import { Glob } from "bun";

/** The files with these extensions below the folders, relative to root. */
export async function sourceFiles(
	root: string,
	folders: string[],
	extensions = "{ts,mjs,js}",
): Promise<string[]> {
	const files: string[] = [];
	for (const folder of folders) {
		for await (const file of new Glob(`${folder}/**/*.${extensions}`).scan(root)) {
			if (!file.split("/").includes("node_modules")) files.push(file);
		}
	}
	return files.sort();
}

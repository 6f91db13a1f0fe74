import { existsSync } from "node:fs";
import type { Podman } from "./podman.ts";

/** The tag deploy/docker-compose.yml gives the image it builds (`image: testfax-api`). */
export const IMAGE = "localhost/testfax-api:latest";

/** The CA bundle npm must trust for the registry: the one Node is told of, else the system's. */
export function caBundle(): string | null {
	const named = process.env.NODE_EXTRA_CA_CERTS;
	if (named !== undefined && existsSync(named)) return named;
	const system = "/etc/ssl/certs/ca-certificates.crt";
	return existsSync(system) ? system : null;
}

/** The build command of docs/operations/containers.md ("Container"), with the CA bundle as the build secret. */
export function buildCommand(): string[] {
	const bundle = caBundle();
	return [
		"podman",
		"build",
		"--pull=never",
		"--format",
		"docker",
		...(bundle === null ? [] : ["--secret", `id=npm_ca,src=${bundle}`]),
		"-t",
		IMAGE,
		".",
	];
}

async function timed<T>(what: string, step: () => Promise<T>): Promise<T> {
	const began = performance.now();
	const result = await step();
	console.log(`${what}: ${((performance.now() - began) / 1000).toFixed(1)} s`);
	return result;
}

async function mustSucceed(what: string, result: Promise<{ code: number; stderr: string }>): Promise<void> {
	const { code, stderr } = await result;
	if (code !== 0) throw new Error(`${what} failed (exit ${code}): ${stderr}`);
}

/**
 * The stand-in base images (deploy/container/stand-in-images.sh), then the
 * project's Dockerfile as it is, built into `podman`'s store; returns the
 * bytes the project's layers add to the Bun base image.
 */
export async function buildProjectImage(podman: Podman): Promise<number> {
	await timed("stand-in base images", () =>
		mustSucceed(
			"deploy/container/stand-in-images.sh",
			podman.command(["bash", "deploy/container/stand-in-images.sh"]),
		),
	);
	await timed("the project's image", () => mustSucceed("podman build", podman.command(buildCommand())));
	const [size, base] = (
		await podman.ok(["image", "inspect", "--format", "{{.Size}}", IMAGE, "docker.io/oven/bun:1.4-slim"])
	)
		.split("\n")
		.map(Number) as [number, number];
	console.log(
		`image size: ${(size / 1e6).toFixed(1)} MB, ${((size - base) / 1e6).toFixed(1)} MB of it above the Bun image`,
	);
	return size - base;
}

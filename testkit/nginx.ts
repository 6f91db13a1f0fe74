import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./ports.ts";

const PROXY_CONF = join(import.meta.dir, "../deploy/nginx/proxy.conf");
const METHODS_CONF = join(import.meta.dir, "../deploy/nginx/methods.conf");
const INSTALL_HINT = "nginx is not installed; install it with `apt-get update && apt-get install -y nginx`";

export interface Nginx {
	port: number;
	stop(): Promise<void>;
}

/**
 * Runs the real nginx in the foreground on a loopback port in front of the
 * given upstream ports, with the deployment's proxy settings and answers to
 * methods the API does not serve (deploy/nginx/proxy.conf, methods.conf) and
 * every file it writes inside `dir`.
 * `X-Upstream` names the instance that answered, for tests.
 */
export async function startNginx(dir: string, upstreamPorts: number[]): Promise<Nginx> {
	const binary = Bun.which("nginx", { PATH: `${process.env.PATH ?? ""}:/usr/sbin:/sbin` });
	if (binary === null) throw new Error(INSTALL_HINT);
	mkdirSync(join(dir, "temp"), { recursive: true });
	// Workers drop root for "nobody", who must reach the temp paths.
	chmodSync(dir, 0o755);
	chmodSync(join(dir, "temp"), 0o777);
	const port = await freePort();
	const file = join(dir, "nginx.conf");
	await Bun.write(file, nginxConfig(dir, port, upstreamPorts));
	const child = Bun.spawn([binary, "-e", join(dir, "error.log"), "-p", dir, "-c", file], {
		stdin: "ignore",
		stdout: "ignore",
		stderr: "pipe",
	});
	await untilAnswering(child, port);
	return {
		port,
		async stop() {
			child.kill("SIGQUIT");
			await child.exited;
		},
	};
}

function nginxConfig(dir: string, port: number, upstreamPorts: number[]): string {
	const servers = upstreamPorts.map(
		(upstream) => `server 127.0.0.1:${upstream} max_fails=1 fail_timeout=1s;`,
	);
	return `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	client_body_temp_path ${dir}/temp/body;
	proxy_temp_path ${dir}/temp/proxy;
	fastcgi_temp_path ${dir}/temp/fastcgi;
	uwsgi_temp_path ${dir}/temp/uwsgi;
	scgi_temp_path ${dir}/temp/scgi;
	upstream testfax_api {
		${servers.join("\n\t\t")}
		keepalive 32;
	}
	server {
		listen 127.0.0.1:${port};
		include ${METHODS_CONF};
		location / {
			proxy_pass http://testfax_api;
			include ${PROXY_CONF};
			add_header X-Upstream $upstream_addr always;
		}
	}
}
`;
}

async function untilAnswering(
	child: Bun.Subprocess<"ignore", "ignore", "pipe">,
	port: number,
): Promise<void> {
	const deadline = Date.now() + 5000;
	for (;;) {
		if (child.exitCode !== null) {
			throw new Error(`nginx exited with ${child.exitCode}: ${await new Response(child.stderr).text()}`);
		}
		if (
			await fetch(`http://127.0.0.1:${port}/`).then(
				() => true,
				() => false,
			)
		)
			return;
		if (Date.now() > deadline) throw new Error(`nginx did not answer on port ${port} within 5 s`);
		await Bun.sleep(20);
	}
}

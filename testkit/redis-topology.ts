import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import { realClockEnv } from "./child-env.ts";
import { freePort } from "./ports.ts";
import { dieWithParent } from "./redis-server.ts";

const START_TIMEOUT_MS = 10_000;
const SETTLE_TIMEOUT_MS = 30_000;

/** One redis-server (or sentinel) process of a topology. */
export interface RedisProcess {
	name: string;
	port: number;
	/** `host:port`, as REDIS_CLUSTER_NODES and REDIS_SENTINELS list it. */
	address: string;
	kill(signal?: NodeJS.Signals): Promise<void>;
	/** Stops the process (SIGSTOP): its sockets stay open, and nothing it is asked gets an answer. */
	pause(): void;
	/** Lets a paused process go on (SIGCONT). */
	resume(): void;
}

export interface TlsServer extends RedisProcess {
	/** The PEM file of the CA that signed the server's certificate. */
	caFile: string;
	/** A client of a user allowed everything, for looking at keys. */
	inspector(): Redis;
}

export interface RedisCluster {
	nodes: RedisProcess[];
	/** A client of the whole cluster, for looking at keys. */
	client(): Cluster;
}

export interface SentinelGroup {
	masterName: string;
	master: RedisProcess;
	replica: RedisProcess;
	sentinels: RedisProcess[];
}

/** A plain client that never retries, so a dead process fails a call at once. */
export function directClient(port: number, options: RedisOptions = {}): Redis {
	const client = new Redis({
		host: "127.0.0.1",
		port,
		maxRetriesPerRequest: 0,
		retryStrategy: () => null,
		...options,
	});
	client.on("error", () => {});
	return client;
}

/** True when a client with `options` gets PONG. */
export async function pings(options: RedisOptions): Promise<boolean> {
	const client = directClient(options.port ?? 6379, { lazyConnect: true, ...options });
	try {
		await client.connect();
		return (await client.ping()) === "PONG";
	} finally {
		client.disconnect();
	}
}

/** Polls `check` every 100 ms until it holds; throws `what` after `timeoutMs`. */
export async function until(
	what: string,
	check: () => Promise<boolean>,
	timeoutMs = SETTLE_TIMEOUT_MS,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await check().catch(() => false))) {
		if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
		await Bun.sleep(100);
	}
}

/**
 * Real redis-server processes on loopback ports, each from a config file of
 * its own in one temp directory: a TLS-only server with an ACL user, a
 * cluster, a master with a replica and sentinels. `close()` stops them all.
 */
export class RedisTopology {
	readonly dir = mkdtempSync(join(tmpdir(), "testfax-redis-"));
	readonly #processes: Bun.Subprocess[] = [];

	/**
	 * Starts redis-server with `config` (lines of redis.conf), as a sentinel if
	 * told, and waits until `ready` holds.
	 */
	async start(
		name: string,
		port: number,
		config: string[],
		ready: () => Promise<boolean>,
		sentinel = false,
	): Promise<RedisProcess> {
		const file = join(this.dir, `${name}.conf`);
		const lines = [
			`dir ${this.dir}`,
			`logfile ${join(this.dir, `${name}.log`)}`,
			"bind 127.0.0.1",
			...config,
		];
		writeFileSync(file, `${lines.join("\n")}\n`);
		const child = Bun.spawn([...dieWithParent, "redis-server", file, ...(sentinel ? ["--sentinel"] : [])], {
			env: realClockEnv(),
			stdin: "ignore",
			stdout: "pipe",
			stderr: "pipe",
		});
		this.#processes.push(child);
		const deadline = Date.now() + START_TIMEOUT_MS;
		while (!(await ready().catch(() => false))) {
			if (child.exitCode !== null || Date.now() > deadline) {
				child.kill("SIGKILL");
				const output = `${await new Response(child.stdout).text()}${await new Response(child.stderr).text()}`;
				throw new Error(`${name} did not start:\n${output}${await this.log(name)}`);
			}
			await Bun.sleep(50);
		}
		return {
			name,
			port,
			address: `127.0.0.1:${port}`,
			async kill(signal = "SIGKILL") {
				child.kill(signal);
				await child.exited;
			},
			pause: () => child.kill("SIGSTOP"),
			resume: () => child.kill("SIGCONT"),
		};
	}

	/** The end of a process's log file, for a failure message. */
	async log(name: string): Promise<string> {
		const text = await Bun.file(join(this.dir, `${name}.log`))
			.text()
			.catch(() => "");
		return text.slice(-3000);
	}

	/** A plain server on a free port, `config` added to its file. */
	async server(name: string, config: string[] = []): Promise<RedisProcess> {
		const port = await freePort();
		return this.start(name, port, [`port ${port}`, 'save ""', "appendonly no", ...config], () =>
			pings({ port }),
		);
	}

	/**
	 * A server that speaks only TLS, with a certificate for 127.0.0.1 signed by a
	 * CA of its own, no default user and one ACL user allowed only what the
	 * count needs, on the keys under `keyPattern`.
	 */
	async tlsServer(
		name: string,
		user: { name: string; password: string; keyPattern: string },
	): Promise<TlsServer> {
		const certificates = makeCertificates(mkdtempSync(join(this.dir, `${name}-`)));
		const port = await freePort();
		const server = await this.start(
			name,
			port,
			[
				"port 0",
				`tls-port ${port}`,
				`tls-cert-file ${certificates.cert}`,
				`tls-key-file ${certificates.key}`,
				`tls-ca-cert-file ${certificates.ca}`,
				"tls-auth-clients no",
				'save ""',
				"appendonly no",
				"user default off",
				`user ${user.name} on >${user.password} ${COUNT_ACL} ~${user.keyPattern}`,
				`user ${INSPECTOR.name} on >${INSPECTOR.password} +@all ~*`,
			],
			() =>
				pings({
					port,
					username: user.name,
					password: user.password,
					tls: { ca: readFileSync(certificates.ca, "utf8") },
				}),
		);
		const tls = { ca: readFileSync(certificates.ca, "utf8") };
		return {
			...server,
			caFile: certificates.ca,
			inspector: () => directClient(port, { username: INSPECTOR.name, password: INSPECTOR.password, tls }),
		};
	}

	/**
	 * `masters` masters with one replica each, made by `redis-cli --cluster
	 * create`, with a node timeout of one second so a dead master is failed
	 * over in a few seconds, and `config` added to every node's file (an ACL
	 * user). Resolves once every node sees the cluster as ok.
	 */
	async cluster(masters: number, config: string[] = []): Promise<RedisCluster> {
		const nodes: RedisProcess[] = [];
		for (let index = 0; index < masters * 2; index++) {
			const [port, busPort] = [await freePort(), await freePort()];
			nodes.push(
				await this.start(
					`node${index}`,
					port,
					[
						`port ${port}`,
						// Beside the default of port + 10000, which is past 65535 for most free ports.
						`cluster-port ${busPort}`,
						"cluster-enabled yes",
						`cluster-config-file nodes-${index}.conf`,
						"cluster-node-timeout 1000",
						// A replica takes over however long ago it last heard from its master.
						"cluster-replica-validity-factor 0",
						'save ""',
						"appendonly no",
						...config,
					],
					() => pings({ port }),
				),
			);
		}
		const create = Bun.spawnSync(
			[
				"redis-cli",
				"--cluster",
				"create",
				...nodes.map((node) => node.address),
				"--cluster-replicas",
				"1",
				"--cluster-yes",
			],
			{ env: realClockEnv(), stdout: "pipe", stderr: "pipe" },
		);
		if (create.exitCode !== 0) {
			throw new Error(`redis-cli --cluster create: ${create.stdout.toString()}${create.stderr.toString()}`);
		}
		await until("every cluster node sees the cluster ok", async () => {
			const states = await Promise.all(nodes.map((node) => clusterInfo(node.port)));
			return states.every(
				(info) => info.includes("cluster_state:ok") && info.includes("cluster_known_nodes:6"),
			);
		});
		return {
			nodes,
			client: () => {
				const client = new Cluster(
					nodes.map((node) => ({ host: "127.0.0.1", port: node.port })),
					{ slotsRefreshInterval: 200, redisOptions: { maxRetriesPerRequest: 1 } },
				);
				client.on("error", () => {});
				return client;
			},
		};
	}

	/**
	 * A master, one replica and three sentinels watching the master under
	 * `masterName` (quorum 2), which they fail over one second after losing it.
	 */
	async sentinelGroup(masterName: string): Promise<SentinelGroup> {
		const master = await this.server("master");
		const replica = await this.server("replica", [`replicaof 127.0.0.1 ${master.port}`]);
		await until("the replica is in sync", async () =>
			(await info(replica.port, "replication")).includes("master_link_status:up"),
		);
		const sentinels: RedisProcess[] = [];
		for (let index = 0; index < 3; index++) {
			const port = await freePort();
			sentinels.push(
				await this.start(
					`sentinel${index}`,
					port,
					[
						`port ${port}`,
						`sentinel monitor ${masterName} 127.0.0.1 ${master.port} 2`,
						`sentinel down-after-milliseconds ${masterName} 1000`,
						`sentinel failover-timeout ${masterName} 10000`,
					],
					() => pings({ port }),
					true,
				),
			);
		}
		await until("every sentinel knows the replica and the other sentinels", async () => {
			const views = await Promise.all(sentinels.map((sentinel) => sentinelMaster(sentinel.port, masterName)));
			return views.every((view) => view["num-slaves"] === "1" && view["num-other-sentinels"] === "2");
		});
		return { masterName, master, replica, sentinels };
	}

	async close(): Promise<void> {
		for (const child of this.#processes) child.kill("SIGKILL");
		await Promise.all(this.#processes.map((child) => child.exited));
		rmSync(this.dir, { recursive: true, force: true });
	}
}

const INSPECTOR = { name: "inspector", password: "inspector-secret" };

// The commands the count sends (its script, through EVALSHA with EVAL as the
// fallback) and those ioredis sends on connecting (the ready check's INFO,
// CLIENT SETNAME/SETINFO, PING). Everything else is denied.
export const COUNT_ACL = "-@all +evalsha +eval +incr +pttl +pexpire +ping +info";

async function withClient<T>(port: number, use: (client: Redis) => Promise<T>): Promise<T> {
	const client = directClient(port);
	try {
		return await use(client);
	} finally {
		client.disconnect();
	}
}

/** The INFO section `section` of the server on `port`. */
export function info(port: number, section: string): Promise<string> {
	return withClient(port, (client) => client.info(section));
}

/** The value of `key` on the server on `port`, through a connection of its own (a failover closes the others). */
export function storedValue(port: number, key: string): Promise<string | null> {
	return withClient(port, (client) => client.get(key));
}

/** How many keys the server on `port` holds. */
export function keyCount(port: number): Promise<number> {
	return withClient(port, (client) => client.dbsize());
}

/** How many connections of the server on `port` are subscribed to a channel. */
export function subscriberCount(port: number): Promise<number> {
	return withClient(port, async (client) => {
		const list = (await client.call("CLIENT", "LIST", "TYPE", "pubsub")) as string;
		return list.split("\n").filter((line) => line.trim() !== "").length;
	});
}

/** CLUSTER INFO of the node on `port`. */
export function clusterInfo(port: number): Promise<string> {
	return withClient(port, (client) => client.cluster("INFO") as Promise<string>);
}

/** What the sentinel on `port` knows of `masterName`, as field → value. */
export function sentinelMaster(port: number, masterName: string): Promise<Record<string, string>> {
	return withClient(port, async (client) => {
		const fields = (await client.call("SENTINEL", "MASTER", masterName)) as string[];
		const view: Record<string, string> = {};
		for (let index = 0; index + 1 < fields.length; index += 2)
			view[fields[index] ?? ""] = fields[index + 1] ?? "";
		return view;
	});
}

/** Runs openssl in `dir`; throws with its output when it fails. */
function openssl(dir: string, args: string[]): void {
	const result = Bun.spawnSync(["openssl", ...args], { cwd: dir, stderr: "pipe", stdout: "pipe" });
	if (result.exitCode !== 0) throw new Error(`openssl ${args.join(" ")}: ${result.stderr.toString()}`);
}

/** A CA and a server certificate for 127.0.0.1 signed by it, made by openssl in `dir`. */
export function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
	const key = ["-newkey", "rsa:2048", "-nodes"];
	openssl(dir, [
		"req",
		"-x509",
		...key,
		"-days",
		"3650",
		"-subj",
		"/CN=testfax test CA",
		"-keyout",
		"ca.key",
		"-out",
		"ca.pem",
	]);
	openssl(dir, ["req", ...key, "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr"]);
	writeFileSync(join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1\n");
	openssl(dir, [
		"x509",
		"-req",
		"-in",
		"server.csr",
		"-CA",
		"ca.pem",
		"-CAkey",
		"ca.key",
		"-CAcreateserial",
		"-days",
		"3650",
		"-extfile",
		"san.ext",
		"-out",
		"server.pem",
	]);
	return { ca: join(dir, "ca.pem"), cert: join(dir, "server.pem"), key: join(dir, "server.key") };
}

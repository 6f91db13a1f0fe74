import type { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import fc from "fast-check";
import { FaxStore, openDatabase } from "../../lib/db/index.ts";
import { NOW_MS } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";
import { answerProblems, exchange, Tally } from "./answers.ts";
import {
	type CatalogueFax,
	DAY,
	expectedList,
	isPublic,
	type ListQuery,
	RETENTION_SECONDS,
	SENDERS,
	storedRow,
} from "./catalogue.ts";
import { CASES, LONG_RUN, PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";

/**
 * Faxes arriving (late ones too), removed, purged, and time passing, between
 * requests: the running server's answers always equal the contract's rules
 * over what was written, whether it answers from memory or from SQLite.
 */

interface Model {
	faxes: CatalogueFax[];
	now: number;
}

interface Real {
	server: TestServer;
	store: FaxStore;
	setNow(seconds: number): void;
}

const tally = new Tally("fax lifecycle");
let slugNumber = 0;

async function ask(real: Real, model: Model, target: string, expected: Parameters<typeof answerProblems>[1]) {
	const answer = tally.see(await exchange(real.server.port, "GET", target));
	const problems = answerProblems(answer, expected, "GET");
	expect({ target, now: model.now, problems }).toEqual({ target, now: model.now, problems: [] });
}

/** A number in letters: slugs with digits in them could look like a piece of a sender. */
function lettersOf(n: number): string {
	return n.toString(26).replace(/[0-9a-p]/g, (digit) => String.fromCharCode(65 + Number.parseInt(digit, 26)));
}

class Receive implements fc.AsyncCommand<Model, Real> {
	constructor(
		readonly age: number,
		readonly senderIndex: number,
		readonly processed: boolean,
	) {}
	check = () => true;
	async run(model: Model, real: Real) {
		const sender = SENDERS[this.senderIndex % SENDERS.length] ?? (SENDERS[0] as (typeof SENDERS)[0]);
		const fax: CatalogueFax = {
			slug: `fax_Life${lettersOf(++slugNumber)}`,
			source: "phone",
			sender: sender.raw,
			masked: sender.masked,
			key: sender.key,
			receivedAt: model.now - this.age,
			processed: this.processed,
			removed: false,
			secrets: sender.secrets,
		};
		await real.store.insert(storedRow(fax));
		model.faxes.push(fax);
	}
	toString = () => `Receive(age ${this.age}, sender ${this.senderIndex}, processed ${this.processed})`;
}

class Remove implements fc.AsyncCommand<Model, Real> {
	constructor(readonly pick: number) {}
	check = (model: Readonly<Model>) => model.faxes.some((fax) => !fax.removed);
	async run(model: Model, real: Real) {
		const live = model.faxes.filter((fax) => !fax.removed);
		const fax = live[this.pick % live.length] as CatalogueFax;
		await real.store.remove(fax.slug, model.now);
		fax.removed = true;
	}
	toString = () => `Remove(${this.pick})`;
}

class Purge implements fc.AsyncCommand<Model, Real> {
	check = () => true;
	async run(model: Model, real: Real) {
		// Faxes past retention already answer 410 and are never listed: the model does not change.
		await real.store.purgeBefore(model.now - RETENTION_SECONDS, model.now);
	}
	toString = () => "Purge";
}

class Wait implements fc.AsyncCommand<Model, Real> {
	constructor(readonly seconds: number) {}
	check = () => true;
	async run(model: Model, real: Real) {
		model.now += this.seconds;
		real.setNow(model.now);
	}
	toString = () => `Wait(${this.seconds} s)`;
}

class List implements fc.AsyncCommand<Model, Real> {
	constructor(
		readonly limit: number | undefined,
		readonly sinceAgo: number | undefined,
		readonly senderIndex: number | undefined,
	) {}
	check = () => true;
	async run(model: Model, real: Real) {
		const params = new URLSearchParams();
		if (this.limit !== undefined) params.set("limit", String(this.limit));
		if (this.sinceAgo !== undefined) {
			params.set("since", `${new Date((model.now - this.sinceAgo) * 1000).toISOString().slice(0, 19)}Z`);
		}
		const sender = this.senderIndex === undefined ? undefined : SENDERS[this.senderIndex % SENDERS.length];
		if (sender !== undefined) params.set("from", sender.key ?? "Unknown");
		const query: ListQuery = {
			after: model.now - (this.sinceAgo ?? DAY),
			limit: this.limit ?? 20,
			sender:
				sender === undefined
					? { kind: "any" }
					: sender.key === null
						? { kind: "unknown" }
						: { kind: "key", key: sender.key },
		};
		const faxes = expectedList(query, model.now, model.faxes);
		await ask(real, model, `/api/faxes?${params}`, { kind: "list", faxes });
	}
	toString = () => `List(limit ${this.limit}, since ${this.sinceAgo} s ago, sender ${this.senderIndex})`;
}

class Fetch implements fc.AsyncCommand<Model, Real> {
	constructor(readonly pick: number) {}
	check = (model: Readonly<Model>) => model.faxes.length > 0;
	async run(model: Model, real: Real) {
		const fax = model.faxes[this.pick % model.faxes.length] as CatalogueFax;
		await ask(
			real,
			model,
			`/api/faxes/${fax.slug}`,
			isPublic(fax, model.now) ? { kind: "fax", fax } : { kind: "gone" },
		);
	}
	toString = () => `Fetch(${this.pick})`;
}

// Ages around the edges that matter: the future, the default day, the 25 hours held in memory, the 30 days.
const AGE = fc.oneof(
	fc.constantFrom(
		-60,
		0,
		1,
		DAY - 1,
		DAY,
		DAY + 1,
		25 * 3600 - 1,
		25 * 3600,
		25 * 3600 + 1,
		RETENTION_SECONDS,
		RETENTION_SECONDS + 1,
	),
	fc.integer({ min: -3600, max: 40 * DAY }),
);

const commands = fc.commands(
	[
		fc
			.tuple(AGE, fc.nat(), fc.boolean())
			.map(([age, sender, processed]) => new Receive(age, sender, processed)),
		fc.nat().map((pick) => new Remove(pick)),
		fc.constant(new Purge()),
		fc
			.oneof(fc.constantFrom(1, 59, 3600, DAY, RETENTION_SECONDS), fc.integer({ min: 1, max: 3 * DAY }))
			.map((seconds) => new Wait(seconds)),
		fc
			.tuple(
				fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
				fc.option(fc.oneof(AGE, fc.constant(50 * DAY)), { nil: undefined }),
				fc.option(fc.nat(), { nil: undefined }),
			)
			.map(([limit, since, sender]) => new List(limit, since, sender)),
		fc.nat().map((pick) => new Fetch(pick)),
	],
	{ maxCommands: 80, size: "large" },
);

test(
	"while faxes arrive, are removed and purged and time passes, every answer follows the contract's rules",
	async () => {
		await fc.assert(
			fc.asyncProperty(commands, async (sequence) => {
				let nowMs = NOW_MS;
				const server = await startTestServer({ clock: () => nowMs });
				let db: Database | undefined;
				try {
					db = openDatabase(server.databasePath);
					const real: Real = {
						server,
						store: new FaxStore(db),
						setNow: (seconds) => {
							nowMs = seconds * 1000;
						},
					};
					await fc.asyncModelRun(() => ({ model: { faxes: [], now: NOW_MS / 1000 }, real }), sequence);
				} finally {
					db?.close();
					await server.stop();
				}
			}),
			runs("faxLifecycle"),
		);
		tally.report(CASES.faxLifecycle[LONG_RUN ? "long" : "fast"]);
	},
	PROPERTY_TIMEOUT_MS,
);

import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { fixedClock } from "../../testkit/fixtures.ts";
import { startTestServer, type TestServer } from "../../testkit/server.ts";
import { answerProblems, exchange, Tally } from "./answers.ts";
import { CASES, LONG_RUN, PROPERTY_TIMEOUT_MS, runs } from "./runs.ts";

/**
 * X-Forwarded-For chains behind a trusted proxy: whatever the spelling of each
 * address, the client is the right-most entry that is not itself trusted
 * (all trusted: the left-most), an entry that is no address stops the walk at
 * the hop to its right, and one address is one count. Each case's client is
 * an address no other case uses, so its first request must find a fresh
 * window, and a request naming the client plainly must land on the same one.
 */

const LIMIT = 1_000_000;
let behindProxy: TestServer;
/** The same trusted ranges, written as IPv4-mapped and IPv4-compatible IPv6 ranges. */
let behindProxySpelledAsIPv6: TestServer;
let direct: TestServer;
const tally = new Tally("X-Forwarded-For");
let caseNumber = 0;

beforeAll(async () => {
	behindProxy = await startTestServer({
		clock: fixedClock,
		env: { TRUST_PROXY: "127.0.0.0/8, 10.0.0.0/8, fd00::/16", RATE_LIMIT_PER_MINUTE: String(LIMIT) },
	});
	behindProxySpelledAsIPv6 = await startTestServer({
		clock: fixedClock,
		env: {
			TRUST_PROXY: "::ffff:127.0.0.0/104, ::10.0.0.0/104, fd00:0000::/16",
			RATE_LIMIT_PER_MINUTE: String(LIMIT),
		},
	});
	direct = await startTestServer({ clock: fixedClock, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
});
afterAll(async () => {
	tally.report(CASES.forwardedFor[LONG_RUN ? "long" : "fast"]);
	await Promise.all([behindProxy.stop(), behindProxySpelledAsIPv6.stop(), direct.stop()]);
});

/** An address of a case: IPv4 as four octets, IPv6 as eight 16-bit groups. */
type Address = { v4: [number, number, number, number] } | { v6: number[] };

const hex = (value: number) => value.toString(16);

/** The address as written in the plain way. */
function plain(address: Address): string {
	if ("v4" in address) return address.v4.join(".");
	return address.v6.map(hex).join(":");
}

/** Every way an entry of X-Forwarded-For may write the address. */
function spellings(address: Address): string[] {
	if ("v4" in address) {
		const quad = address.v4.join(".");
		const [a, b, c, d] = address.v4;
		const high = hex((a << 8) | b);
		const low = hex((c << 8) | d);
		return [
			quad,
			`${quad}:443`,
			`${quad}:0`,
			`::ffff:${quad}`,
			`::FFFF:${quad}`,
			`0:0:0:0:0:ffff:${quad}`,
			`0000:0000:0000:0000:0000:FFFF:${quad}`,
			`::ffff:${high}:${low}`,
			`::${quad}`,
			`0:0:0:0:0:0:${quad}`,
			`::${high}:${low}`,
			`::${high.toUpperCase()}:${low.padStart(4, "0")}`,
			`[::ffff:${quad}]`,
			`[::ffff:${quad}]:8080`,
			`[::${high}:${low}]:65535`,
		];
	}
	const groups = address.v6;
	const full = groups.map((group) => hex(group).padStart(4, "0")).join(":");
	const short = groups.map(hex).join(":");
	return [short, full, full.toUpperCase(), `[${short}]`, `[${full}]:443`, compressed(groups)];
}

/** RFC 5952 style: the longest run of zero groups as `::`. */
function compressed(groups: number[]): string {
	let best = -1;
	let length = 0;
	for (let i = 0; i < groups.length; ) {
		let j = i;
		while (j < groups.length && groups[j] === 0) j++;
		if (j - i > length) {
			best = i;
			length = j - i;
		}
		i = j === i ? i + 1 : j;
	}
	if (length < 2) return groups.map(hex).join(":");
	return `${groups.slice(0, best).map(hex).join(":")}::${groups
		.slice(best + length)
		.map(hex)
		.join(":")}`;
}

const JUNK = [
	"unknown",
	"",
	"_hidden",
	"1.2.3",
	"1.2.3.4.5",
	"01.2.3.4",
	"256.0.0.1",
	"0x7f.0.0.1",
	"127.1",
	"[1.2.3.4]",
	"1.2.3.4:99999",
	"1.2.3.4:",
	"[::1",
	"::ffff:0x7f.0.0.1",
	"2001:db8::1::2",
	"::ffff:1.2.3.4:80",
	"1.2.3.4 5.6.7.8",
	"[2001:db8::1]x",
	"-",
	"::ffff:1.2.3.04",
];

const random16 = fc.integer({ min: 0, max: 0xffff });

/** A client address no other case uses: IPv4 in 100.64.0.0/10, IPv6 a /64 of 2001:db8::/32 of its own. */
function uniqueClient(n: number, v6: boolean, host: number[]): Address {
	if (v6) return { v6: [0x2001, 0xdb8, (n >>> 16) & 0xffff, n & 0xffff, ...host] };
	return { v4: [100, 64 + ((n >>> 16) & 63), (n >>> 8) & 255, n & 255] };
}

/** A trusted proxy address no other case uses: in 10.0.0.0/8, or a /64 of fd00::/16. */
function uniqueProxy(n: number, v6: boolean, host: number[]): Address {
	if (v6) return { v6: [0xfd00, 0, (n >>> 16) & 0xffff, n & 0xffff, ...host] };
	return { v4: [10, (n >>> 16) & 255, (n >>> 8) & 255, n & 255] };
}

const host = fc.array(random16, { minLength: 4, maxLength: 4 });
const anyProxy = fc.tuple(fc.boolean(), fc.nat(), host).map(([v6, n, bits]) => uniqueProxy(n, v6, bits));
const spelled = (address: Address) => fc.constantFrom(...spellings(address));
const padding = fc.constantFrom("", "", " ", "  ", "\t");

/** The shape of a chain; the case's unique addresses are filled in when it runs. */
const chainShape = fc.record({
	kind: fc.constantFrom("client", "all-trusted", "junk"),
	v6: fc.boolean(),
	host,
	spelling: fc.nat(),
	left: fc.array(fc.oneof(fc.constantFrom(...JUNK), anyProxy.chain(spelled), fc.constant("203.0.113.9")), {
		maxLength: 4,
	}),
	junk: fc.constantFrom(...JUNK),
	hops: fc.array(anyProxy.chain(spelled), { maxLength: 4 }),
	hopSpellings: fc.array(fc.nat(), { minLength: 5, maxLength: 5 }),
	pads: fc.array(padding, { minLength: 20, maxLength: 20 }),
	splitAt: fc.option(fc.nat(), { nil: undefined }),
});

type Shape = typeof chainShape extends fc.Arbitrary<infer T> ? T : never;

/** The chain's entries, and the address it must be keyed as (null: the TCP peer). */
function build(shape: Shape, n: number): { entries: string[]; client: Address | null; fresh: boolean } {
	const pick = (address: Address, at: number) => {
		const all = spellings(address);
		return all[at % all.length] as string;
	};
	if (shape.kind === "client") {
		const client = uniqueClient(n, shape.v6, shape.host);
		return { entries: [...shape.left, pick(client, shape.spelling), ...shape.hops], client, fresh: true };
	}
	if (shape.kind === "all-trusted") {
		const first = uniqueProxy(n, shape.v6, shape.host);
		return { entries: [pick(first, shape.spelling), ...shape.hops], client: first, fresh: true };
	}
	// The walk stops at the junk; the hop right of it passed it on and is the key.
	if (shape.hops.length === 0) return { entries: [...shape.left, shape.junk], client: null, fresh: false };
	const nearest = uniqueProxy(n, shape.v6, shape.host);
	return {
		entries: [...shape.left, shape.junk, pick(nearest, shape.spelling), ...shape.hops],
		client: nearest,
		fresh: true,
	};
}

async function remaining(server: TestServer, forwardedFor: string[]): Promise<number> {
	const answer = tally.see(
		await exchange(
			server.port,
			"GET",
			"/api/faxes?limit=1",
			forwardedFor.map((value): [string, string] => ["X-Forwarded-For", value]),
		),
	);
	const problems = answerProblems(answer, { kind: "list", faxes: [] }, "GET");
	if (problems.length > 0) throw new Error(problems.join("\n"));
	return Number(answer.headers["x-ratelimit-remaining"]);
}

test(
	"behind a trusted proxy, every spelling and chain keys the client docs/operations/rate-limit.md names; without one the header changes nothing",
	async () => {
		await fc.assert(
			fc.asyncProperty(chainShape, async (shape) => {
				const n = ++caseNumber;
				const { entries, client, fresh } = build(shape, n);
				const header = entries.map((entry, i) => `${shape.pads[i % 20]}${entry}${shape.pads[(i + 7) % 20]}`);
				const split = shape.splitAt === undefined ? header.length : shape.splitAt % (header.length + 1);
				const lines = [header.slice(0, split), header.slice(split)]
					.filter((part) => part.length > 0)
					.map((part) => part.join(","));
				if (lines.length === 0) lines.push("");

				// The same client named plainly; for IPv6 another host of its /64.
				const reference =
					client === null
						? []
						: [plain("v6" in client ? { v6: [...client.v6.slice(0, 4), 1, 2, 3, 4] } : client)];
				const counts: Record<string, { fresh: number; same: number }> = {};
				const want: typeof counts = {};
				for (const [name, server] of [
					["ranges", behindProxy],
					["ranges spelled as IPv6", behindProxySpelledAsIPv6],
				] as const) {
					const first = await remaining(server, lines);
					const second = await remaining(server, reference);
					counts[name] = { fresh: fresh ? first : LIMIT - 1, same: second };
					want[name] = { fresh: LIMIT - 1, same: first - 1 };
				}
				const directFirst = await remaining(direct, lines);
				const directSecond = await remaining(direct, []);
				expect({ lines, counts, direct: directSecond }).toEqual({
					lines,
					counts: want,
					direct: directFirst - 1,
				});
			}),
			runs("forwardedFor"),
		);
	},
	PROPERTY_TIMEOUT_MS,
);

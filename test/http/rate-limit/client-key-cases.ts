import { expect } from "bun:test";
import { allowed, answerOf, from, type Start, send } from "./answers.ts";

// Which client a request counts for (addresses, proxies, X-Forwarded-For): run by defineRateLimitSuite on every backend.

export async function sharesIpv6Slash64(start: Start): Promise<void> {
	const server = await start({ TRUST_PROXY: "127.0.0.1" });
	const answers = [
		await send(server, "/api/faxes", from("2001:db8:1:2::1")),
		await send(server, "/api/faxes", from("2001:db8:1:2:ffff::9")),
		await send(server, "/api/faxes", from("2001:0DB8:0001:0002:abcd:0:0:1")),
		await send(server, "/api/faxes", from("2001:db8:1:3::1")),
		await send(server, "/api/faxes"),
	];
	expect(answers).toEqual([allowed(59), allowed(58), allowed(57), allowed(59), allowed(59)]);
}

export async function keysMappedIpv6AsIpv4(start: Start): Promise<void> {
	const server = await start({ TRUST_PROXY: "127.0.0.1" });
	const answers = [
		await send(server, "/api/faxes", from("::ffff:203.0.113.7")),
		await send(server, "/api/faxes", from("203.0.113.7")),
		await send(server, "/api/faxes", from("::ffff:cb00:7107")),
		await send(server, "/api/faxes", from("203.0.113.8")),
	];
	expect(answers).toEqual([allowed(59), allowed(58), allowed(57), allowed(59)]);
}

export async function sharesEveryIpv4Spelling(start: Start): Promise<void> {
	const server = await start({ TRUST_PROXY: "127.0.0.1, ::10.0.0.0/104" });
	const spellings = [
		"203.0.113.7",
		"::203.0.113.7",
		"0:0:0:0:0:0:203.0.113.7",
		"::cb00:7107",
		"::CB00:7107",
		"0000:0000:0000:0000:0000:0000:cb00:7107",
		"[::203.0.113.7]:443",
		"::ffff:203.0.113.7",
		"0:0:0:0:0:ffff:203.0.113.7",
		"::ffff:cb00:7107",
		"[::ffff:cb00:7107]",
		// A trusted proxy written IPv4-compatible in TRUST_PROXY vouches for the client left of it.
		"203.0.113.7, 10.1.2.3",
	];
	const answers = [];
	for (const spelling of spellings) answers.push(await send(server, "/api/faxes", from(spelling)));
	expect(answers).toEqual(spellings.map((_, i) => allowed(59 - i)));
	// The IPv6 loopback and unspecified address are no IPv4 addresses: they stay in ::/64.
	expect(await send(server, "/api/faxes", from("::1"))).toEqual(allowed(59));
	expect(await send(server, "/api/faxes", from("::"))).toEqual(allowed(58));
	expect(await send(server, "/api/faxes", from("::0.0.0.2"))).toEqual(allowed(57));
}

export async function takesRightmostUntrustedEntry(start: Start): Promise<void> {
	const server = await start({ TRUST_PROXY: "127.0.0.1, 10.0.0.0/8" });
	const answers = [
		await send(server, "/api/faxes", from("198.51.100.1")),
		await send(server, "/api/faxes", from("198.51.100.1, 127.0.0.1")),
		await send(server, "/api/faxes", from("198.51.100.1, 10.1.2.3, 127.0.0.1")),
		// Entries left of the client are the client's own claims: ignored.
		await send(server, "/api/faxes", from("192.0.2.50, 198.51.100.1")),
		await send(server, "/api/faxes", from("198.51.100.2, 127.0.0.1")),
		await send(server, "/api/faxes"),
	];
	expect(answers).toEqual([allowed(59), allowed(58), allowed(57), allowed(56), allowed(59), allowed(59)]);
}

export async function ignoresPortsAndBrackets(start: Start): Promise<void> {
	const server = await start({ TRUST_PROXY: "127.0.0.1" });
	const answers = [
		await send(server, "/api/faxes", from("203.0.113.7")),
		await send(server, "/api/faxes", from("203.0.113.7:51234")),
		await send(server, "/api/faxes", from("203.0.113.7:443, 127.0.0.1:8080")),
		await send(server, "/api/faxes", from("2001:db8:1:2::1")),
		await send(server, "/api/faxes", from("[2001:db8:1:2::1]")),
		await send(server, "/api/faxes", from("[2001:db8:1:2::1]:443")),
		await send(server, "/api/faxes"),
	];
	expect(answers).toEqual([
		allowed(59),
		allowed(58),
		allowed(57),
		allowed(59),
		allowed(58),
		allowed(57),
		allowed(59),
	]);
}

export async function ignoresUntrustedForwardedFor(start: Start): Promise<void> {
	const server = await start();
	const answers = [
		await send(server, "/api/faxes"),
		await send(server, "/api/faxes", from("198.51.100.1")),
		await send(server, "/api/faxes", from("2001:db8:1:2::1, 198.51.100.1")),
		await send(server, "/api/faxes"),
	];
	expect(answers).toEqual([allowed(59), allowed(58), allowed(57), allowed(56)]);
}

export async function stopsAtMalformedEntry(start: Start): Promise<void> {
	const server = await start({ TRUST_PROXY: "127.0.0.1" });
	// A malformed entry cannot be keyed, so the hop that passed it on (here
	// the trusted peer itself) is counted: a forged header picks no key.
	const onPeer = [
		"",
		"garbage",
		",,,",
		"198.51.100.1, not-an-ip",
		"999.1.1.1",
		"127.1",
		"0x7f.0.0.1",
		"198.51.100.1:99999",
		"[2001:db8::1",
		"198.51.100.0/24",
		"2001:db8:::1",
		"x".repeat(8000),
		`${Array.from({ length: 500 }, () => "127.0.0.1").join(",")},oops`,
	];
	const malformed = [];
	for (const header of onPeer) malformed.push(await send(server, "/api/faxes", from(header)));
	const peer = await send(server, "/api/faxes");
	// Left of a valid untrusted client, a malformed entry is never reached.
	const client = await send(server, "/api/faxes", from("garbage, 198.51.100.1"));

	expect(malformed).toEqual(onPeer.map((_, i) => allowed(59 - i)));
	expect(peer).toEqual(allowed(59 - onPeer.length));
	expect(client).toEqual(allowed(59));
}

export async function keysDualStackIpv4(start: Start): Promise<void> {
	const server = await start({ HOST: "::", TRUST_PROXY: "127.0.0.1" });
	// Over IPv4 Bun reports the peer as ::ffff:127.0.0.1, over IPv6 as ::1.
	const overIpv6 = async (headers: Record<string, string> = {}) => {
		const response = await fetch(`http://[::1]:${server.port}/api/faxes`, {
			headers: { "user-agent": "testfax-tests/1.0", ...headers },
		});
		await response.arrayBuffer();
		return answerOf(response);
	};
	const answers = [
		await send(server, "/api/faxes"),
		await send(server, "/api/faxes", from("198.51.100.1")),
		await send(server, "/api/faxes"),
		await overIpv6(),
		// ::1 is not trusted, so its X-Forwarded-For is ignored.
		await overIpv6({ "x-forwarded-for": "198.51.100.1" }),
	];
	expect(answers).toEqual([allowed(59), allowed(59), allowed(58), allowed(59), allowed(58)]);
}

import { describe, expect, test } from "bun:test";
import ipaddr from "ipaddr.js";
import { createClientKeyResolver, parseTrustProxy } from "../../lib/net/index.ts";

describe("client key without trusted proxies", () => {
	const keyOf = createClientKeyResolver(parseTrustProxy(undefined));

	test("an IPv4 peer is keyed by its address", () => {
		expect(keyOf("203.0.113.7", null)).toBe("203.0.113.7");
	});

	test("an IPv4-mapped IPv6 peer counts as its IPv4 address", () => {
		expect(keyOf("::ffff:203.0.113.7", null)).toBe("203.0.113.7");
		expect(keyOf("::FFFF:cb00:7107", null)).toBe("203.0.113.7");
	});

	test("every spelling of an IPv4 address as IPv6, mapped or compatible, is that IPv4 address", () => {
		for (const spelling of [
			"::ffff:203.0.113.7",
			"0:0:0:0:0:ffff:203.0.113.7",
			"0000:0000:0000:0000:0000:FFFF:CB00:7107",
			"::203.0.113.7",
			"0:0:0:0:0:0:203.0.113.7",
			"::cb00:7107",
			"0:0:0:0:0:0:cb00:7107",
			"::0:cb00:7107",
		]) {
			expect([spelling, keyOf(spelling, null)]).toEqual([spelling, "203.0.113.7"]);
		}
	});

	test("the unspecified and loopback addresses and the rest of ::/104 stay IPv6, in every spelling", () => {
		for (const spelling of [
			"::",
			"::1",
			"::2",
			"::0.0.0.2",
			"0:0:0:0:0:0:0.0.0.1",
			"::ff:ffff",
			"::0.255.255.255",
		]) {
			expect([spelling, keyOf(spelling, null)]).toEqual([spelling, "::/64"]);
		}
	});

	test("other IPv6 addresses with an IPv4 address inside are IPv6 clients", () => {
		expect(keyOf("64:ff9b::203.0.113.7", null)).toBe("64:ff9b::/64");
		expect(keyOf("::ffff:0:203.0.113.7", null)).toBe("::/64");
		expect(keyOf("2002:cb00:7107::1", null)).toBe("2002:cb00:7107::/64");
	});

	test("IPv6 peers are grouped by their /64", () => {
		expect(keyOf("2001:db8:1:2:3:4:5:6", null)).toBe("2001:db8:1:2::/64");
		expect(keyOf("2001:DB8:1:2:ffff::1", null)).toBe("2001:db8:1:2::/64");
		expect(keyOf("2001:0db8:0001:0002:0000:0000:0000:0001", null)).toBe("2001:db8:1:2::/64");
		expect(keyOf("2001:db8:1:3::1", null)).toBe("2001:db8:1:3::/64");
		expect(keyOf("::1", null)).toBe("::/64");
		expect(keyOf("fe80::1%eth0", null)).toBe("fe80::/64");
	});

	test("X-Forwarded-For from an untrusted peer is ignored", () => {
		expect(keyOf("203.0.113.7", "198.51.100.1")).toBe("203.0.113.7");
		expect(keyOf("::ffff:203.0.113.7", "198.51.100.1, 10.0.0.1")).toBe("203.0.113.7");
	});
});

describe("client key behind trusted proxies", () => {
	const keyOf = createClientKeyResolver(parseTrustProxy("10.0.0.0/8,192.0.2.1,2001:db8:ffff::/48,::1"));

	test("the right-most untrusted X-Forwarded-For entry is the client", () => {
		expect(keyOf("10.0.0.1", "198.51.100.9, 203.0.113.7, 10.0.0.2")).toBe("203.0.113.7");
		expect(keyOf("192.0.2.1", "203.0.113.7")).toBe("203.0.113.7");
		expect(keyOf("10.0.0.1", "203.0.113.7,10.9.9.9,192.0.2.1")).toBe("203.0.113.7");
	});

	test("a trusted IPv4-mapped peer is trusted as its IPv4 address", () => {
		expect(keyOf("::ffff:10.0.0.1", "203.0.113.7")).toBe("203.0.113.7");
	});

	test("X-Forwarded-For entries are normalised like peers", () => {
		expect(keyOf("10.0.0.1", "::ffff:203.0.113.7")).toBe("203.0.113.7");
		expect(keyOf("10.0.0.1", "2001:db8:aaaa:1:2:3:4:5")).toBe("2001:db8:aaaa:1::/64");
	});

	test("a trusted peer without X-Forwarded-For is the client", () => {
		expect(keyOf("10.0.0.1", null)).toBe("10.0.0.1");
		expect(keyOf("10.0.0.1", "")).toBe("10.0.0.1");
		expect(keyOf("10.0.0.1", " ")).toBe("10.0.0.1");
	});

	test("when every entry is trusted, the left-most one is the client", () => {
		expect(keyOf("10.0.0.1", "10.0.0.5, 10.0.0.2")).toBe("10.0.0.5");
	});

	test("a malformed entry ends the walk and the nearest valid hop to its right is the client", () => {
		expect(keyOf("10.0.0.1", "203.0.113.7, not-an-ip, 10.0.0.2")).toBe("10.0.0.2");
		expect(keyOf("10.0.0.1", "203.0.113.7, 10.0.0.2, ")).toBe("10.0.0.1");
		expect(keyOf("10.0.0.1", "garbage")).toBe("10.0.0.1");
		expect(keyOf("10.0.0.1", ",")).toBe("10.0.0.1");
		expect(keyOf("10.0.0.1", ",10.0.0.3")).toBe("10.0.0.3");
		expect(keyOf("10.0.0.1", "unknown, 10.0.0.2")).toBe("10.0.0.2");
	});

	test("a port on an IPv4 entry is dropped", () => {
		expect(keyOf("10.0.0.1", "203.0.113.7:51234")).toBe("203.0.113.7");
		expect(keyOf("10.0.0.1", "203.0.113.7:0")).toBe("203.0.113.7");
		expect(keyOf("10.0.0.1", "203.0.113.7:65535")).toBe("203.0.113.7");
		// A trusted hop with a port is still trusted, so the walk goes on past it.
		expect(keyOf("10.0.0.1", "203.0.113.7:443, 10.0.0.2:8080")).toBe("203.0.113.7");
	});

	test("a bracketed IPv6 entry is read with or without a port", () => {
		expect(keyOf("10.0.0.1", "[2001:db8:aaaa:1::1]")).toBe("2001:db8:aaaa:1::/64");
		expect(keyOf("10.0.0.1", "[2001:db8:aaaa:1::1]:443")).toBe("2001:db8:aaaa:1::/64");
		expect(keyOf("10.0.0.1", "[::ffff:203.0.113.7]")).toBe("203.0.113.7");
		expect(keyOf("10.0.0.1", "[::ffff:203.0.113.7]:51234")).toBe("203.0.113.7");
		expect(keyOf("10.0.0.1", "198.51.100.9, [2001:db8:ffff::7]:443")).toBe("198.51.100.9");
	});

	test("other ports and brackets are malformed", () => {
		const malformed = [
			"1.2.3.4:",
			"1.2.3.4:99999",
			"1.2.3.4:65536",
			"1.2.3.4:123456",
			"1.2.3.4:8a",
			"1.2.3.4: 80",
			"1.2.3.4:80:80",
			"127.1:80",
			"[::1",
			"::1]:80",
			"[::1]:",
			"[::1]80",
			"[::1]:99999",
			"[::1]]",
			"[[::1]]",
			"[]",
			"[203.0.113.7]",
			"[203.0.113.7]:80",
			"::ffff:0x7f.0.0.1",
			"::ffff:01.2.3.4",
			"[::ffff:127.1]:80",
		];
		expect(malformed.map((entry) => [entry, keyOf("10.0.0.1", entry)])).toEqual(
			malformed.map((entry) => [entry, "10.0.0.1"]),
		);
		expect(keyOf("10.0.0.1", "203.0.113.7, 1.2.3.4:, 10.0.0.2")).toBe("10.0.0.2");
	});

	test("legacy IPv4 spellings are malformed, not aliases", () => {
		expect(keyOf("10.0.0.1", "127.1")).toBe("10.0.0.1");
		expect(keyOf("10.0.0.1", "0x7f.0.0.1")).toBe("10.0.0.1");
		expect(keyOf("10.0.0.1", "3405803783")).toBe("10.0.0.1");
	});

	test("an IPv4 entry is read exactly as ipaddr.js's strict four-part decimal check reads it", () => {
		const parts = [
			"0",
			"1",
			"9",
			"00",
			"01",
			"10",
			"99",
			"100",
			"255",
			"256",
			"099",
			"1000",
			"",
			"a",
			"0x1",
			" 1",
			"+1",
			"١",
		];
		const texts = [
			...parts.map((part) => `${part}.2.3.4`),
			...parts.map((part) => `1.2.3.${part}`),
			...parts.map((part) => `1.${part}.${part}.4`),
			"1.2.3",
			"1.2.3.4.",
			".1.2.3.4",
			"1..2.3",
			"1.2.3.4.5",
			"255.255.255.255",
			"0.0.0.0",
		];
		// An entry is trimmed before it is read.
		const strict = (text: string) => ipaddr.IPv4.isValidFourPartDecimal(text.trim());
		expect(texts.map((text) => [text, keyOf("10.0.0.1", text)])).toEqual(
			texts.map((text) => [text, strict(text) ? ipaddr.IPv4.parse(text.trim()).toString() : "10.0.0.1"]),
		);
		expect(texts.filter(strict).length).toBeGreaterThan(20);
	});

	test("hostile headers never throw", () => {
		const hostile = ["\u0000", "💥, 💥", "1.2.3.4.5", ":::", "/", "10.0.0.0/8", ",,,,", "a,".repeat(100_000)];
		for (const header of hostile) expect(() => keyOf("10.0.0.1", header)).not.toThrow();
		expect(keyOf("10.0.0.1", `${"1.1.1.1,".repeat(100_000)}203.0.113.7`)).toBe("203.0.113.7");
	});

	test("a malformed peer address is keyed as given rather than throwing", () => {
		expect(keyOf("not-an-ip", "203.0.113.7")).toBe("not-an-ip");
	});

	test("an IPv6 CIDR trusts the peers inside it only", () => {
		expect(keyOf("2001:db8:ffff:1::1", "198.51.100.9")).toBe("198.51.100.9");
		expect(keyOf("2001:db8:fffe::1", "198.51.100.9")).toBe("2001:db8:fffe::/64");
		expect(keyOf("::1", "2001:db8:ffff::7, 198.51.100.9")).toBe("198.51.100.9");
	});

	test("an IPv4-compatible address or range in TRUST_PROXY trusts the IPv4 peers it covers", () => {
		const keyOf = createClientKeyResolver(parseTrustProxy("::10.0.0.0/104, ::192.0.2.1, ::/104"));
		expect(keyOf("10.9.8.7", "203.0.113.7")).toBe("203.0.113.7");
		expect(keyOf("::10.9.8.7", "203.0.113.7")).toBe("203.0.113.7");
		expect(keyOf("192.0.2.1", "203.0.113.7")).toBe("203.0.113.7");
		expect(keyOf("192.0.2.2", "203.0.113.7")).toBe("192.0.2.2");
		expect(keyOf("::1", "203.0.113.7")).toBe("203.0.113.7");
		expect(keyOf("11.0.0.1", "203.0.113.7")).toBe("11.0.0.1");
	});

	test("an IPv4-mapped range in TRUST_PROXY trusts the IPv4 peers it covers", () => {
		const mapped = createClientKeyResolver(parseTrustProxy("::ffff:10.0.0.0/104"));
		expect(mapped("10.1.2.3", "203.0.113.7")).toBe("203.0.113.7");
		expect(mapped("::ffff:10.1.2.3", "203.0.113.7")).toBe("203.0.113.7");
		expect(mapped("11.1.2.3", "203.0.113.7")).toBe("11.1.2.3");
	});
});

describe("parseTrustProxy", () => {
	test("reads comma-separated addresses and ranges", () => {
		expect(parseTrustProxy(" 10.0.0.0/8, ::1 ,2001:db8::/32,192.0.2.1,").entries).toEqual([
			"10.0.0.0/8",
			"::1",
			"2001:db8::/32",
			"192.0.2.1",
		]);
	});

	test("unset or empty means no trusted proxy", () => {
		expect(parseTrustProxy(undefined).entries).toEqual([]);
		expect(parseTrustProxy("").entries).toEqual([]);
	});

	test("names the bad entry", () => {
		expect(() => parseTrustProxy("10.0.0.0/8, nonsense")).toThrow(
			'TRUST_PROXY: not an IP address: "nonsense"',
		);
		expect(() => parseTrustProxy("10.0.0.0/33")).toThrow(
			'TRUST_PROXY: not an IP address or CIDR range: "10.0.0.0/33"',
		);
		expect(() => parseTrustProxy("10.1/16")).toThrow('"10.1/16"');
		expect(() => parseTrustProxy("127.1")).toThrow('"127.1"');
		expect(() => parseTrustProxy("2001:db8::/129")).toThrow('"2001:db8::/129"');
		expect(() => parseTrustProxy("10.0.0.0/")).toThrow('"10.0.0.0/"');
	});
});

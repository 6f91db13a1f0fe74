import { describe, expect, test } from "bun:test";
import { isUnknownSenderQuery, maskSender, senderMatchKey, storedSenderKey } from "../../lib/fax/sender.ts";

describe("maskSender", () => {
	test.each([
		["John.Doe@Example.co.uk", "j***@e***.uk"],
		["+1 555 123 4567", "+155*****567"],
		["+49 30 12345678", "+4930*****678"],
		["123456", "*****456"],
		["FAX 1234567", "FAX*****567"],
		["ACME 42", "ACME 42"],
	])("DECISIONS.md example %p is %p", (raw, masked) => {
		expect(maskSender(raw)).toBe(masked);
	});

	test.each([null, "", " ", " \t\n "])("no sender (%p) is null", (raw) => {
		expect(maskSender(raw)).toBeNull();
	});

	describe("an email address", () => {
		test.each([
			["john@example.com", "j***@e***.com"],
			["JOHN@EXAMPLE.COM", "j***@e***.com"],
			["  John@Example.com \n", "j***@e***.com"],
			["fax@mail.sub.example.org", "f***@m***.org"],
			["Fax@Localhost", "f***@l***"],
			["a@b", "a***@b***"],
			["12345678@fax.example.com", "1***@f***.com"],
			["office+fax@example.de", "o***@e***.de"],
			["a@b@example.com", "a***@e***.com"],
		])("%p is %p", (raw, masked) => {
			expect(maskSender(raw)).toBe(masked);
		});
	});

	describe("a number: 6 digits or more", () => {
		test.each([
			["12 34 56", "*****456"],
			["1234567", "*****567"],
			["12345678", "*****678"],
			["123456789", "1*****789"],
			["+15551234567", "+155*****567"],
			["  +1 555 123 4567  ", "+155*****567"],
			["+1\t555\n123  4567", "+155*****567"],
			["+1\u00a0555\u00a0123\u00a04567", "+155*****567"],
			["+1 (555) 123-4567", "+1(55*****567"],
			["123-456-78-9", "1*****78-9"],
			["1234567 ext", "*****567ext"],
			["Station 12-34-56", "Station*****4-56"],
		])("%p is %p", (raw, masked) => {
			expect(maskSender(raw)).toBe(masked);
		});
	});

	describe("fewer than 6 digits: as it is, trimmed", () => {
		test.each([
			["12345", "12345"],
			["ACME 12345", "ACME 12345"],
			[" 12 345 ", "12 345"],
			["ACME  Fax  Dept", "ACME  Fax  Dept"],
			["  Station A1  ", "Station A1"],
			["Unknown", "Unknown"],
			["+", "+"],
		])("%p is %p", (raw, masked) => {
			expect(maskSender(raw)).toBe(masked);
		});
	});
});

describe("senderMatchKey", () => {
	test.each([
		["+1 555 123 4567", "15551234567"],
		["+15551234567", "15551234567"],
		["15551234567", "15551234567"],
		["1 555 123 4567", "15551234567"],
		["John.Doe@Example.co.uk", "john.doe@example.co.uk"],
		["ACME 42", "acme42"],
		["acme42", "acme42"],
		["  ACME\t4 2\n", "acme42"],
		[" +1 555", "1555"],
		["+ 1555", "1555"],
		["++1555", "+1555"],
		["1+555", "1+555"],
		["+", ""],
		["", ""],
	])("%p has the key %p", (value, key) => {
		expect(senderMatchKey(value)).toBe(key);
	});

	test("case, white space and one leading + do not count", () => {
		const spellings = ["+1 555 123 4567", "15551234567", " +1555 1234567 ", "1\u00a0555\t123\n4567"];
		expect(new Set(spellings.map(senderMatchKey))).toEqual(new Set(["15551234567"]));
		expect(senderMatchKey("Acme Fax")).toBe(senderMatchKey("ACMEFAX"));
	});

	test("the masked form never matches the raw sender", () => {
		const raw = "+1 555 123 4567";
		expect(senderMatchKey(maskSender(raw) ?? "")).toBe("155*****567");
		expect(senderMatchKey(maskSender(raw) ?? "")).not.toBe(senderMatchKey(raw));
	});

	test("there is no prefix match", () => {
		expect(senderMatchKey("+1 555")).not.toBe(senderMatchKey("+1 555 123 4567"));
	});
});

describe("storedSenderKey", () => {
	test.each([null, "", "  ", "\t\n"])("no sender (%p) has no key", (raw) => {
		expect(storedSenderKey(raw)).toBeNull();
	});

	test.each([
		["+1 555 123 4567", "15551234567"],
		["John.Doe@Example.co.uk", "john.doe@example.co.uk"],
		[" ACME 42 ", "acme42"],
		["Unknown", "unknown"],
	])("%p is stored as %p", (raw, key) => {
		expect(storedSenderKey(raw)).toBe(key);
	});
});

describe("isUnknownSenderQuery", () => {
	// Read by its match key, as a sender is: white space and invisible characters do not count.
	test.each([
		"Unknown",
		"unknown",
		"UNKNOWN",
		"uNkNoWn",
		" Unknown",
		"Unknown ",
		"Un known",
		"\u200bUnknown",
		"Unk\u00adnown",
		"+Unknown",
		"ｕｎｋｎｏｗｎ",
	])("%p selects faxes without sender", (value) => {
		expect(isUnknownSenderQuery(value)).toBe(true);
	});

	test.each(["", "Unknow", "Unknown1", "Unknown.", "++Unknown", "null", "Anonymous"])(
		"%p is a sender like any other",
		(value) => {
			expect(isUnknownSenderQuery(value)).toBe(false);
		},
	);
});

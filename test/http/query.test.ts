import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { createQueryValidator } from "../../lib/http/query.ts";
import { route } from "../../routes/api/faxes/index.ts";

const LIMIT = "The limit field must be an integer between 1 and 100.";
const SINCE = "The since field must be a date-time with a time zone offset, like 2026-11-21T10:00:00Z.";
const FROM_LONG = "The from field must not be longer than 255 characters.";
const single = (name: string) => `The ${name} field must be a single value.`;

// 2026-11-21T10:00:00Z
const NOV_21_10H = 1_795_255_200;

const validate = createQueryValidator(route.query);

describe("a valid query is decoded", () => {
	test.each([
		["", {}],
		["limit=1", { limit: 1 }],
		["limit=20", { limit: 20 }],
		["limit=100", { limit: 100 }],
		["limit=007", { limit: 7 }],
		["limit=000100", { limit: 100 }],
		["since=2026-11-21T10:00:00Z", { since: NOV_21_10H }],
		["since=2026-11-21T10:00:00.999Z", { since: NOV_21_10H }],
		["since=2026-11-21T12:00:00%2B02:00", { since: NOV_21_10H }],
		["since=2026-11-21T12:00:00%2b0200", { since: NOV_21_10H }],
		["since=2026-11-21T05:00:00-05:00", { since: NOV_21_10H }],
		["since=2026-11-21T10%3A00%3A00Z", { since: NOV_21_10H }],
		["from=%2B1%20555%20123%204567", { from: "+1 555 123 4567" }],
		["from=ACME+42", { from: "ACME 42" }],
		["from=Unknown", { from: "Unknown" }],
		["from=j***@e***.uk", { from: "j***@e***.uk" }],
		["limit=5&since=2026-11-21T10:00:00Z&from=x", { limit: 5, since: NOV_21_10H, from: "x" }],
		["from=x&since=2026-11-21T10:00:00Z&limit=5", { limit: 5, since: NOV_21_10H, from: "x" }],
	])("%p is %j", (search, value) => {
		expect(validate(search)).toEqual({ ok: true, value });
	});

	test("limit decodes to a number, since to Unix seconds, from stays text", () => {
		const result = validate("limit=05&since=2026-11-21T10:00:00Z&from=42");
		if (!result.ok) throw new Error(JSON.stringify(result.errors));
		expect(typeof result.value.limit).toBe("number");
		expect(typeof result.value.since).toBe("number");
		expect(typeof result.value.from).toBe("string");
	});

	test("from may be 255 characters long", () => {
		expect(validate(`from=${"a".repeat(255)}`)).toEqual({ ok: true, value: { from: "a".repeat(255) } });
		expect(validate(`from=${"%C3%A9".repeat(255)}`)).toEqual({ ok: true, value: { from: "é".repeat(255) } });
	});
});

describe("percent-decoding", () => {
	test.each([
		["%6Cimit=5", { limit: 5 }],
		["%66%72%6F%6D=x", { from: "x" }],
		["from=a%2Bb", { from: "a+b" }],
		["from=a+b", { from: "a b" }],
		["from=a%20b", { from: "a b" }],
		["from=%", { from: "%" }],
		["from=%zz", { from: "%zz" }],
		["from=%C3%A9", { from: "é" }],
		["from=%E0%A4%A", { from: "\ufffd%A" }],
		["from=a=b", { from: "a=b" }],
	])("%p is %j", (search, value) => {
		expect(validate(search)).toEqual({ ok: true, value });
	});

	test.each([
		"since=2026-11-21T12:00:00+02:00",
		"since=2026-11-21T12:00:00+0200",
		"since=2026-11-21T10:00:00+00:00",
	])("a raw + in %p becomes a space: invalid", (search) => {
		expect(validate(search)).toEqual({ ok: false, errors: { since: [SINCE] } });
	});

	test("a raw + in front of a limit becomes a space: invalid", () => {
		expect(validate("limit=+5")).toEqual({ ok: false, errors: { limit: [LIMIT] } });
	});
});

describe("empty values are absent", () => {
	test.each([
		["limit=", {}],
		["since=", {}],
		["from=", {}],
		["limit=&since=&from=", {}],
		["from", {}],
		["from=&limit=5", { limit: 5 }],
	])("%p is %j", (search, value) => {
		expect(validate(search)).toEqual({ ok: true, value });
	});
});

describe("unknown keys are ignored", () => {
	test.each([
		["page=2", {}],
		["foo=bar&limit=3", { limit: 3 }],
		["foo[]=1&foo=2&foo=3", {}],
		["LIMIT=0&From=x&SINCE=today", {}],
		["limits=0&fromage=x", {}],
		["[]=x&=y&&&", {}],
		["_=1700000000&from=x", { from: "x" }],
	])("%p is %j", (search, value) => {
		expect(validate(search)).toEqual({ ok: true, value });
	});
});

describe("repeated or bracketed keys", () => {
	test.each([
		["from=a&from=b", "from"],
		["from=a&from=a", "from"],
		["limit=1&limit=1", "limit"],
		["limit=1&limit=2", "limit"],
		// A key is repeated whatever its values: an empty one is no exception.
		["limit=&limit=5", "limit"],
		["limit=5&limit=", "limit"],
		["limit=&limit=", "limit"],
		["from=&from=x", "from"],
		["from=x&from=", "from"],
		["from=&from=&from=x&from=", "from"],
		["from&from", "from"],
		["since=2026-11-21T10:00:00Z&since=", "since"],
		["since=2026-11-21T10:00:00Z&since=2026-11-21T10:00:00Z", "since"],
		["from[]=x", "from"],
		["from[]=", "from"],
		["from[]=&from=x", "from"],
		["from=x&from[]=", "from"],
		["from[0]=x", "from"],
		["from[]=a&from[]=b", "from"],
		["from%5B%5D=x", "from"],
		["from[=x", "from"],
		["limit[]=1", "limit"],
		["limit[x]=5", "limit"],
		["since[x]=2026-11-21T10:00:00Z", "since"],
		["since[]=2026-11-21T10:00:00Z", "since"],
	])("%p is invalid for %s", (search, name) => {
		expect(validate(search)).toEqual({ ok: false, errors: { [name]: [single(name)] } });
	});

	test("only the repeated parameter is invalid; the others are still checked", () => {
		expect(validate("from=a&from=b&limit=5")).toEqual({ ok: false, errors: { from: [single("from")] } });
		expect(validate("limit[]=1&since=2026-11-21T10:00:00Z&from=x")).toEqual({
			ok: false,
			errors: { limit: [single("limit")] },
		});
	});

	test("a repeated parameter gets one message, whatever its values are", () => {
		expect(validate("limit=0&limit=500")).toEqual({ ok: false, errors: { limit: [single("limit")] } });
		expect(validate(`from=${"a".repeat(300)}&from[]=b`)).toEqual({
			ok: false,
			errors: { from: [single("from")] },
		});
	});
});

describe("invalid values", () => {
	test.each([
		"0",
		"00",
		"101",
		"1000",
		"-1",
		"1.5",
		"1.0",
		"abc",
		"1e2",
		"%201",
		"1%20",
		"true",
		"0x10",
		"５",
	])("limit=%s", (value) => {
		expect(validate(`limit=${value}`)).toEqual({ ok: false, errors: { limit: [LIMIT] } });
	});

	test.each([
		"2026-11-21",
		"2026-11-21T10:00:00",
		"2026-11-21t10:00:00z",
		"2026-02-30T10:00:00Z",
		"2026-11-21T25:00:00Z",
		"2026-11-21T10:00:00%2B24:00",
		"yesterday",
		"1795255200",
		"%20",
	])("since=%s", (value) => {
		expect(validate(`since=${value}`)).toEqual({ ok: false, errors: { since: [SINCE] } });
	});

	test("from longer than 255 characters", () => {
		expect(validate(`from=${"a".repeat(256)}`)).toEqual({ ok: false, errors: { from: [FROM_LONG] } });
		expect(validate(`from=${"%20".repeat(256)}`)).toEqual({ ok: false, errors: { from: [FROM_LONG] } });
	});
});

describe("errors", () => {
	test("one message per invalid parameter, in the order limit, since, from", () => {
		const result = validate(`from=${"b".repeat(300)}&since=today&limit=0`);
		expect(result).toEqual({ ok: false, errors: { limit: [LIMIT], since: [SINCE], from: [FROM_LONG] } });
		if (result.ok) return;
		expect(Object.keys(result.errors)).toEqual(["limit", "since", "from"]);
	});

	test("single-value and format errors share that order", () => {
		const result = validate("from[]=a&since=today&limit[]=1");
		expect(result).toEqual({
			ok: false,
			errors: { limit: [single("limit")], since: [SINCE], from: [single("from")] },
		});
		if (result.ok) return;
		expect(Object.keys(result.errors)).toEqual(["limit", "since", "from"]);
	});

	test("valid parameters beside an invalid one are not named", () => {
		expect(validate("limit=5&since=today&from=x")).toEqual({ ok: false, errors: { since: [SINCE] } });
		expect(validate("limit=500&since=2026-11-21T10:00:00Z")).toEqual({
			ok: false,
			errors: { limit: [LIMIT] },
		});
	});
});

describe("a schema without its own messages", () => {
	const plain = createQueryValidator(
		Type.Object({ page: Type.Optional(Type.String({ pattern: "^[0-9]+$" })) }),
	);

	test("a generic message names the parameter", () => {
		expect(plain("page=x")).toEqual({ ok: false, errors: { page: ["The page field is invalid."] } });
	});
});

test("a query string seen again gets the same answer, also after more than a thousand others", () => {
	const own = createQueryValidator(route.query);
	const first = [own("limit=7"), own("limit=0")];
	for (let i = 0; i < 1500; i++) own(`since=2026-11-21T10:00:00Z&x=${i}`);
	expect([own("limit=7"), own("limit=0")]).toEqual(first);
	expect(first).toEqual([
		{ ok: true, value: { limit: 7 } },
		{ ok: false, errors: { limit: [LIMIT] } },
	]);
});

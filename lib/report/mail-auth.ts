// What a receiving mail server would make of an email test: SPF, DKIM and DMARC
// as mailauth evaluates them, over DNS that is bounded in time, and what Gmail
// or Microsoft 365 would likely do with the message (issue 57, item 2).
//
// The DNS is asked here, not through node:dns, because Bun's node:dns (1.4.5)
// returns wrong data: resolveTxt gives each string of a TXT record as a record
// of its own (oven-sh/bun#21370), which cuts every 2048-bit DKIM key in two,
// and it reports an empty answer (NODATA) as a missing name (ENOTFOUND), which
// DMARC's np= test tells apart. Its Resolver also rounds timeouts up to whole
// seconds. dns-packet reads and writes the messages; this file only sends them.

import { randomInt } from "node:crypto";
import { createSocket } from "node:dgram";
import { promises as nodeDns } from "node:dns";
import { connect, isIP } from "node:net";
import {
	type Answer,
	type DecodedPacket,
	decode,
	encode,
	type Packet,
	type Question,
	RECURSION_DESIRED,
	type RecordType,
	streamDecode,
	streamEncode,
} from "dns-packet";
import type { AuthenticateOptions, AuthenticateResult, DKIMResult, DNSResolver } from "mailauth";

/** Our Postfix's record of the SMTP transaction that brought the message. */
export interface MailTransaction {
	clientAddress: string;
	helo: string | null;
	/** MAIL FROM; null for the null sender `<>`. */
	envelopeSender: string | null;
}

/** "unknown": could not be checked (a DNS timeout or error, a record that could not be evaluated); never a pass or a fail. */
export type Check = "pass" | "fail" | "softfail" | "neutral" | "none" | "unknown";

/**
 * The checks of one message. Domains are kept for whoever masks them; the
 * client's address is never part of it.
 */
export interface MailAuth {
	/** SPF for the client address and the envelope sender's domain (the HELO name when the sender is null). */
	spf: { result: Check; domain: string | null };
	/** Every DKIM signature, verified; `aligned`: its domain aligns with the From domain (mailauth's test). */
	dkim: { result: Check; domain: string | null; aligned: boolean }[];
	/**
	 * DMARC for the From domain: the policy it applies (sp= or np= for a
	 * subdomain, one level lower under t=y), and whether a passing SPF or DKIM
	 * identity aligned, as DMARC evaluated them (false when there is no record).
	 * "unknown" also where it would fail only for want of an SPF result or of
	 * an aligned signature that could not be checked.
	 */
	dmarc: {
		result: Check;
		policy: "none" | "quarantine" | "reject" | null;
		fromDomain: string | null;
		spfAligned: boolean;
		dkimAligned: boolean;
	};
	/** What Gmail or Microsoft 365 would likely do; see likelyOf. */
	likely: "deliver" | "spam" | "refuse" | "unknown";
	/** Milliseconds the checks took. */
	tookMs: number;
}

export interface MailAuthOptions {
	/**
	 * `host:port` (`[v6]:port`) of recursive resolvers; null: the host's
	 * (/etc/resolv.conf). A name that is not an address is a setting's mistake,
	 * and the check throws it at once.
	 */
	dnsServers: string[] | null;
	/** The bound of the whole check: it resolves by then, with what could not be checked "unknown". */
	timeoutMs: number;
}

type Parts = Omit<MailAuth, "likely" | "tookMs">;

interface Server {
	host: string;
	port: number;
	family: number;
}

const NOERROR = 0;
const NXDOMAIN = 3;
const RCODE_ERRORS: Record<number, string> = { 1: "EFORMERR", 2: "ESERVFAIL", 4: "ENOTIMP", 5: "EREFUSED" };
// EDNS0 with the payload size of DNS Flag Day 2020: a 2048-bit DKIM key fits in one UDP answer.
const EDNS: Answer = {
	type: "OPT",
	name: ".",
	udpPayloadSize: 1232,
	extendedRcode: 0,
	ednsVersion: 0,
	flags: 0,
	flag_do: false,
	options: [],
};

/** An error as node:dns gives it, whose code mailauth reads (ENOTFOUND, ENODATA: no record; others: temperror). */
function dnsError(code: string, name: string): Error {
	return Object.assign(new Error(`${code} ${name}`), { code, hostname: name });
}

/** `host:port`, `[v6]:port`, or an address alone (port 53): addresses only, as node:dns's setServers takes. */
function serverOf(text: string): Server {
	let [host, port] = [text, "53"];
	if (isIP(text) === 0) {
		const match = /^\[(.+)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
		[host, port] = [match?.[1] ?? "", match?.[2] ?? ""];
	}
	const family = isIP(host);
	if (family === 0 || !(Number(port) >= 1 && Number(port) <= 65535)) {
		throw new Error(`not a DNS server address (host:port): ${text}`);
	}
	return { host, port: Number(port), family };
}

function decoded(message: Buffer): DecodedPacket | null {
	try {
		return decode(message);
	} catch {
		return null;
	}
}

/**
 * One exchange with a server, settled once: by `start`'s answer or failure, or
 * by the signal (the query's bound, the check's end); the socket closed then.
 */
function exchange<T>(signal: AbortSignal, close: () => void, start: (finish: Finish<T>) => void): Promise<T> {
	return new Promise((resolve, reject) => {
		let open = true;
		const finish: Finish<T> = (error, reply) => {
			if (!open) return;
			open = false;
			signal.removeEventListener("abort", abort);
			close();
			if (reply) resolve(reply);
			else reject(error);
		};
		const abort = () => finish(signal.reason);
		signal.addEventListener("abort", abort, { once: true });
		start(finish);
		if (signal.aborted) abort();
	});
}

type Finish<T> = (error: unknown, reply?: T) => void;

/** One query over UDP; only this server's answer with this id counts, as for any stub resolver. */
function overUdp(server: Server, query: Buffer, id: number, signal: AbortSignal): Promise<DecodedPacket> {
	const socket = createSocket(server.family === 6 ? "udp6" : "udp4");
	return exchange<DecodedPacket>(
		signal,
		() => socket.close(),
		(finish) => {
			socket.on("error", (error) => finish(error));
			socket.on("message", (message, from) => {
				const reply = from.port === server.port ? decoded(message) : null;
				if (reply?.id === id) finish(null, reply);
			});
			socket.send(query, server.port, server.host);
		},
	);
}

/** One query over TCP, for an answer too long for UDP (RFC 7766). */
function overTcp(server: Server, query: Buffer, signal: AbortSignal): Promise<Packet> {
	const socket = connect({ host: server.host, port: server.port });
	let received = Buffer.alloc(0);
	return exchange<Packet>(
		signal,
		() => socket.destroy(),
		(finish) => {
			socket.on("error", (error) => finish(error));
			socket.on("close", () => finish(dnsError("ECONNRESET", server.host)));
			socket.on("data", (chunk) => {
				received = Buffer.concat([received, typeof chunk === "string" ? Buffer.from(chunk) : chunk]);
				if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return;
				try {
					finish(null, streamDecode(received));
				} catch (error) {
					finish(error);
				}
			});
			socket.write(query);
		},
	);
}

async function askServer(server: Server, question: Question, signal: AbortSignal): Promise<Packet> {
	const id = randomInt(0, 65536);
	const query: Packet = {
		type: "query",
		id,
		flags: RECURSION_DESIRED,
		questions: [question],
		additionals: [EDNS],
	};
	const reply = await overUdp(server, encode(query), id, signal);
	return reply.flag_tc ? overTcp(server, streamEncode(query), signal) : reply;
}

const rcodeOf = (reply: Packet) => (reply.flags ?? 0) & 0xf;

/**
 * Every server at once, one try each: the first answer that says something of
 * the name (NOERROR or NXDOMAIN) is believed; a server that fails leaves the
 * others to answer; when all fail, the first failure is the query's.
 */
function askAll(servers: Server[], question: Question, signal: AbortSignal): Promise<Packet> {
	return new Promise((resolve, reject) => {
		let pending = servers.length;
		let firstError: unknown = null;
		if (pending === 0) reject(dnsError("ECONNREFUSED", question.name));
		for (const server of servers) {
			askServer(server, question, signal)
				.then((reply) => {
					const rcode = rcodeOf(reply);
					if (rcode !== NOERROR && rcode !== NXDOMAIN) {
						throw dnsError(RCODE_ERRORS[rcode] ?? "EBADRESP", question.name);
					}
					resolve(reply);
				})
				.catch((error: unknown) => {
					firstError ??= error;
					pending -= 1;
					if (pending === 0) reject(firstError);
				});
		}
	});
}

/** An answer's data in the shape node:dns gives it, which mailauth expects. */
function nodeRecord(answer: Answer): unknown {
	switch (answer.type) {
		case "TXT":
			// One record, its strings in order: a consumer joins them (RFC 7208 3.3, RFC 6376 3.6.2.2).
			return [answer.data].flat().map((part) => part.toString());
		case "MX":
			return { exchange: answer.data.exchange, priority: answer.data.preference ?? 0 };
		default:
			return "data" in answer ? answer.data : null;
	}
}

function recordsOf(reply: Packet, type: string, name: string): unknown[] {
	if (rcodeOf(reply) === NXDOMAIN) throw dnsError("ENOTFOUND", name);
	// A resolver's answer may hold a CNAME chain before the records asked for.
	const records = (reply.answers ?? []).filter((answer) => answer.type === type).map(nodeRecord);
	if (records.length === 0) throw dnsError("ENODATA", name);
	return records;
}

/**
 * mailauth's resolver for one check: each question asked once (its answer or
 * failure remembered), each query bounded by `perQueryMs` and by the check's
 * deadline, and everything still asking stopped by `close`.
 */
class BoundedResolver {
	readonly #servers: Server[];
	readonly #perQueryMs: number;
	readonly #deadline: number;
	readonly #closed = new AbortController();
	readonly #asked = new Map<string, Promise<unknown[]>>();

	constructor(servers: string[] | null, perQueryMs: number, deadline: number) {
		const names = servers !== null && servers.length > 0 ? servers : new nodeDns.Resolver().getServers();
		this.#servers = names.map(serverOf);
		this.#perQueryMs = perQueryMs;
		this.#deadline = deadline;
	}

	readonly resolve = (name: string, type: string): Promise<unknown[]> => {
		const key = `${type} ${name.toLowerCase()}`;
		let answer = this.#asked.get(key);
		if (answer === undefined) {
			answer = this.#ask(name, type);
			this.#asked.set(key, answer);
		}
		return answer;
	};

	close(): void {
		this.#closed.abort(dnsError("ECANCELLED", "(check ended)"));
	}

	async #ask(name: string, type: string): Promise<unknown[]> {
		const waitMs = Math.min(this.#perQueryMs, this.#deadline - performance.now());
		if (waitMs <= 0) throw dnsError("ETIMEOUT", name);
		const query = new AbortController();
		const timer = setTimeout(() => query.abort(dnsError("ETIMEOUT", name)), waitMs);
		try {
			const signal = AbortSignal.any([this.#closed.signal, query.signal]);
			const reply = await askAll(this.#servers, { type: type as RecordType, name }, signal);
			return recordsOf(reply, type, name);
		} finally {
			clearTimeout(timer);
			query.abort();
		}
	}
}

/** mailauth's result words as a tester's: what could not be evaluated is "unknown", never a pass or a fail. */
function checkOf(result: string | undefined): Check {
	switch (result) {
		case "pass":
		case "fail":
		case "softfail":
		case "neutral":
		case "none":
			return result;
		case "policy":
			// A DKIM signature checked and refused by the receiver's rules (a key under 1024 bits).
			return "fail";
		default:
			// temperror (a DNS timeout or error), permerror (a record that could not be evaluated).
			return "unknown";
	}
}

function spfOf(spf: AuthenticateResult["spf"]): MailAuth["spf"] {
	if (spf === false) return { result: "unknown", domain: null };
	// Without a sender or a HELO name, mailauth checks the client's address literal: never kept.
	const literal = spf.domain.startsWith("[") || isIP(spf.domain) !== 0;
	return { result: checkOf(spf.status.result), domain: literal ? null : spf.domain };
}

function dkimOf(results: DKIMResult[]): MailAuth["dkim"] {
	// mailauth reports an unsigned message as one result without a signing domain.
	return results
		.filter((signature) => signature.signingDomain !== undefined)
		.map((signature) => ({
			result: checkOf(signature.status.result),
			domain: signature.signingDomain ?? null,
			aligned: Boolean(signature.status.aligned),
		}));
}

const POLICIES = new Set(["none", "quarantine", "reject"]);

function dmarcOf(dmarc: AuthenticateResult["dmarc"], spf: Check, dkim: MailAuth["dkim"]): MailAuth["dmarc"] {
	if (dmarc === false) {
		// No single From domain to evaluate (none, or several): DMARC does not apply.
		return { result: "none", policy: null, fromDomain: null, spfAligned: false, dkimAligned: false };
	}
	const result = checkOf(dmarc.status.result);
	// mailauth's fail means only that nothing aligned passed: with SPF, or a
	// signature that aligns, not checked, it is not known that nothing would have.
	const undecided =
		spf === "unknown" || dkim.some((signature) => signature.result === "unknown" && signature.aligned);
	return {
		result: result === "fail" && undecided ? "unknown" : result,
		policy: POLICIES.has(dmarc.policy) ? (dmarc.policy as "none" | "quarantine" | "reject") : null,
		fromDomain: dmarc.status.header?.from ?? null,
		spfAligned: Boolean(dmarc.alignment?.spf.result),
		dkimAligned: Boolean(dmarc.alignment?.dkim.result),
	};
}

function partsOf(result: AuthenticateResult): Parts {
	const spf = spfOf(result.spf);
	const dkim = dkimOf(result.dkim.results ?? []);
	return { spf, dkim, dmarc: dmarcOf(result.dmarc, spf.result, dkim) };
}

/** A check that could not run to its end: everything unknown, nothing guessed. */
function unchecked(): Parts {
	return {
		spf: { result: "unknown", domain: null },
		dkim: [],
		dmarc: { result: "unknown", policy: null, fromDomain: null, spfAligned: false, dkimAligned: false },
	};
}

/**
 * Where no DMARC policy is enforced (no record, or p=none): Gmail's and
 * Microsoft's sender rules want SPF or DKIM to pass; an SPF fail is only
 * outweighed by a signature of the From domain itself.
 */
function unenforced(spf: Check, dkim: MailAuth["dkim"]): MailAuth["likely"] {
	const passes = dkim.filter((signature) => signature.result === "pass");
	const unknown = dkim.filter((signature) => signature.result === "unknown");
	const aligned = (signature: MailAuth["dkim"][number]) => signature.aligned;
	const spfFails = spf === "fail" || spf === "softfail";
	if (spfFails && !passes.some(aligned) && !unknown.some(aligned)) return "spam";
	if (spf === "pass" || passes.some(aligned)) return "deliver";
	// Another domain's signature counts only once SPF is known not to fail.
	if (passes.length > 0 && !spfFails && spf !== "unknown") return "deliver";
	if ((spf === "neutral" || spf === "none") && unknown.length === 0) return "spam";
	return "unknown";
}

/**
 * What Gmail or Microsoft 365 would likely do with the message: the one place
 * that decides. The first row that matches:
 *
 * | DMARC                                 | SPF             | DKIM                                       | likely  |
 * | ------------------------------------- | --------------- | ------------------------------------------ | ------- |
 * | pass                                  |                 |                                            | deliver |
 * | fail, policy reject                   |                 |                                            | refuse  |
 * | fail, policy quarantine               |                 |                                            | spam    |
 * | none, or policy none (not pass)       | fail, softfail  | none aligned passes, none aligned unknown  | spam    |
 * | none, or policy none (not pass)       | pass            |                                            | deliver |
 * | none, or policy none (not pass)       |                 | an aligned one passes                      | deliver |
 * | none, or policy none (not pass)       | neutral, none   | one passes                                 | deliver |
 * | none, or policy none (not pass)       | neutral, none   | none passes, none unknown                  | spam    |
 * | unknown                               | pass for the From domain itself, or a DKIM pass signed by it | | deliver |
 * | anything else                         |                 |                                            | unknown |
 *
 * A fail is "unknown" already when SPF or an aligned signature could not be
 * checked (dmarcOf), so a refusal or the spam folder never rests on a part
 * that could not be checked; and an unknown never makes a delivery: each
 * "deliver" row rests on a pass that nothing unchecked could outweigh (another
 * domain's signature only once SPF is known not to fail; under an unknown
 * DMARC, an identity that aligns with the From domain under any record).
 */
export function likelyOf({ spf, dkim, dmarc }: Parts): MailAuth["likely"] {
	if (dmarc.result === "pass") return "deliver";
	if (dmarc.result === "fail" && dmarc.policy === "reject") return "refuse";
	if (dmarc.result === "fail" && dmarc.policy === "quarantine") return "spam";
	if (dmarc.result === "none" || dmarc.policy === "none") return unenforced(spf.result, dkim);
	const from = dmarc.fromDomain?.toLowerCase();
	const own = (result: Check, domain: string | null) => result === "pass" && domain?.toLowerCase() === from;
	if (from !== undefined && (own(spf.result, spf.domain) || dkim.some((s) => own(s.result, s.domain)))) {
		return "deliver";
	}
	return "unknown";
}

/**
 * SPF, DKIM and DMARC of a received message as a receiving server checks them,
 * and what Gmail or Microsoft 365 would likely do. Resolves within
 * `timeoutMs`: each DNS query gets a quarter of it (so that one silent server
 * leaves time for the other checks' queries), the last ones end a little
 * before the bound so that mailauth can finish with what it has, and whatever
 * is still running at the bound is given up as "unknown". It never rejects for
 * DNS trouble, nor for a message mailauth cannot read.
 */
export async function checkMailAuth(
	message: Uint8Array,
	transaction: MailTransaction,
	options: MailAuthOptions,
): Promise<MailAuth> {
	const started = performance.now();
	const margin = Math.min(100, options.timeoutMs / 10);
	const resolver = new BoundedResolver(
		options.dnsServers,
		options.timeoutMs / 4,
		started + options.timeoutMs - margin,
	);
	const settings: AuthenticateOptions = {
		ip: transaction.clientAddress,
		helo: transaction.helo ?? undefined,
		sender: transaction.envelopeSender ?? undefined,
		resolver: resolver.resolve as DNSResolver,
		// ARC is for forwarded mail, BIMI fetches logos over HTTPS: neither says whether a scan is taken.
		disableArc: true,
		disableBimi: true,
	};
	const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
	// Imported here: mailauth and what it loads (joi, undici, libmime, tldts) take
	// about 0.1 s, which only a check should pay, not every command that reads reports.
	const checks = import("mailauth").then(({ authenticate }) =>
		authenticate(bytes, settings).then(partsOf, unchecked),
	);
	// Once the bound has answered, a late failure has nobody to tell: it must not end the process.
	void checks.catch(() => undefined);
	let timer: ReturnType<typeof setTimeout> | undefined;
	const bound = new Promise<Parts>((resolve) => {
		timer = setTimeout(() => resolve(unchecked()), options.timeoutMs);
	});
	try {
		const parts = await Promise.race([checks, bound]);
		return { ...parts, likely: likelyOf(parts), tookMs: Math.round(performance.now() - started) };
	} finally {
		clearTimeout(timer);
		resolver.close();
	}
}

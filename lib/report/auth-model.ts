// An email test's authentication in a tester's words: what Gmail or
// Microsoft 365 would likely do with it, each check in a line, and the advice
// that fits. "Your domain", never the domain; an unknown is never a pass or a
// fail, it "could not be checked".
import type { MailAuthReport } from "./auth-report.ts";
import type { Check } from "./mail-auth.ts";

export interface AuthModel {
	likely: MailAuthReport["likely"];
	/** What a real recipient's server would likely do, in one sentence. */
	words: string;
	/** Each check: SPF, DKIM, DMARC, in a line each. */
	checks: { name: "SPF" | "DKIM" | "DMARC"; words: string }[];
	/** Why a refusal or the spam folder, in a clause; null when neither. */
	why: string | null;
	advice: string[];
}

const NOT_CHECKED = "could not be checked (DNS did not answer in time, or gave no usable answer)";

const SPF_WORDS: Record<Check, string> = {
	pass: "pass: your domain's SPF record lists the address your device sent from",
	fail: "fail: your domain's SPF record does not list the address your device sent from",
	softfail: "soft fail: your domain's SPF record does not list the address your device sent from (~all)",
	neutral: "neutral: your domain's SPF record says nothing of the address your device sent from (?all)",
	none: "none: your domain publishes no SPF record",
	unknown: NOT_CHECKED,
};

function dkimWords(auth: MailAuthReport): string {
	if (auth.dkim.length === 0) return "none: the message is not signed";
	const one = ({ result, aligned }: MailAuthReport["dkim"][number]) => {
		const by = aligned ? "signed for your domain" : "signed for another domain (a mail provider's, say)";
		if (result === "pass") return `${by}, and the signature verifies`;
		if (result === "unknown") return `${by}; the signature ${NOT_CHECKED}`;
		return `${by}, but the signature does not verify (the message was changed on its way, or the key is wrong)`;
	};
	return auth.dkim.map(one).join("; ");
}

function dmarcWords({ result, policy }: MailAuthReport["dmarc"]): string {
	if (result === "unknown") return NOT_CHECKED;
	if (result === "none" || policy === null) return "none: your domain publishes no DMARC policy";
	const applied = `your domain's policy is ${policy}`;
	return result === "pass"
		? `pass (${applied})`
		: `fail: neither SPF nor DKIM passes for your domain, and ${applied}`;
}

const LIKELY_WORDS: Record<MailAuthReport["likely"], string> = {
	deliver: "Gmail or Microsoft 365 would likely deliver it to the inbox.",
	spam: "Gmail or Microsoft 365 would likely file it as spam.",
	refuse: "Gmail or Microsoft 365 would likely refuse it.",
	unknown: `Whether Gmail or Microsoft 365 would take it ${NOT_CHECKED}.`,
};

function spfClause(auth: MailAuthReport): string {
	if (auth.spf !== "pass") return "the address your device sent from is not in your domain's SPF record";
	// Without a DMARC record nothing is aligned; SPF's own pass is for the envelope sender's domain then.
	return auth.spfAligned || auth.dmarc.policy === null
		? "SPF passes"
		: "SPF passes only for another domain than your From address's";
}

/** Why a refusal or the spam folder, in a clause. */
function whyOf(auth: MailAuthReport): string {
	const dmarc =
		auth.dmarc.policy === null
			? "your domain publishes no DMARC policy"
			: `your domain's DMARC policy is ${auth.dmarc.policy}`;
	const dkim = auth.dkim.some((s) => s.result === "pass" && s.aligned)
		? "it is signed for your domain"
		: "it is not signed for your domain (DKIM)";
	return `${dmarc}, ${spfClause(auth)}, and ${dkim}`;
}

function adviceOf(auth: MailAuthReport): string[] {
	if (auth.likely !== "refuse" && auth.likely !== "spam") return [];
	const advice = [
		"Send through your mail provider's authenticated relay (SMTP submission on port 587, with the device's own login and STARTTLS): the provider's servers are in your domain's SPF record and sign with DKIM.",
	];
	if (auth.spf !== "pass")
		advice.push(
			"If the device must send directly, list the address it sends from in your domain's SPF record.",
		);
	if (!auth.dkim.some((s) => s.result === "pass" && s.aligned))
		advice.push("Sign its mail with DKIM for your domain: a provider's relay does it for you.");
	return advice;
}

/** The model of an email test's authentication, from what its report kept. */
export function authModel(auth: MailAuthReport): AuthModel {
	const failing = auth.likely === "refuse" || auth.likely === "spam";
	return {
		likely: auth.likely,
		words: LIKELY_WORDS[auth.likely],
		checks: [
			{ name: "SPF", words: SPF_WORDS[auth.spf] },
			{ name: "DKIM", words: dkimWords(auth) },
			{ name: "DMARC", words: dmarcWords(auth.dmarc) },
		],
		why: failing ? whyOf(auth) : null,
		advice: adviceOf(auth),
	};
}

// What a real recipient's mail server would make of an email test, as its
// report keeps it: the results and the policy, never a domain or an address
// (the page says "your domain", whatever the domain is).
import type { Check, MailAuth } from "./mail-auth.ts";

export interface MailAuthReport {
	spf: Check;
	/** The envelope sender's (or HELO's) domain SPF was checked for is the From domain's, as DMARC aligns it. */
	spfAligned: boolean;
	/** Every DKIM signature: its result, and whether it is the From domain's. */
	dkim: { result: Check; aligned: boolean }[];
	dmarc: { result: Check; policy: "none" | "quarantine" | "reject" | null };
	likely: MailAuth["likely"];
}

/** The report of a check, with its domains dropped. */
export function authReport(auth: MailAuth): MailAuthReport {
	return {
		spf: auth.spf.result,
		spfAligned: auth.dmarc.spfAligned,
		dkim: auth.dkim.map(({ result, aligned }) => ({ result, aligned })),
		dmarc: { result: auth.dmarc.result, policy: auth.dmarc.policy },
		likely: auth.likely,
	};
}

// Our Postfix's own log, read line by line as it is written, for the messages
// to a test address that never reached the hand-over (issue 57): refused as
// too large, or broken off during the transfer. Postfix names the recipient
// of neither, so the receivers' install makes its smtpd log one line for each
// test address it accepts (check_recipient_access … WARN, TEST_ADDRESS_NOTE),
// and this reader follows each smtpd process's session from that line to the
// line that ends the message. One smtpd process holds one session at a time.
//
//   smtpd[7]: connect from unknown[192.0.2.1]
//   smtpd[7]: NOQUEUE: warn: RCPT from unknown[192.0.2.1]: testfax test address; from=<s@d> to=<fax@t> proto=ESMTP helo=<h>
//   smtpd[7]: 4jcM394v8fzD2Pv: client=unknown[192.0.2.1]
//   smtpd[7]: warning: 4jcM394v8fzD2Pv: queue file size limit exceeded
//   smtpd[7]: lost connection after DATA (50064 bytes) from unknown[192.0.2.1]
//   smtpd[7]: timeout after DATA (1024 bytes) from unknown[192.0.2.1]
//   smtpd[7]: disconnect from unknown[192.0.2.1] ehlo=1 mail=1 rcpt=1 data=0/1 commands=3/4

/** The note the install's access map logs for each test address smtpd accepts. */
export const TEST_ADDRESS_NOTE = "testfax test address";

/** How a message to a test address ended before it was whole. */
export type RefusalKind = "too-large" | "lost" | "timeout";

export interface MailRefusal {
	/** Postfix's queue id of the message: names it once (long queue ids do not repeat). */
	queueId: string;
	kind: RefusalKind;
	/** Bytes of the message received before it ended; null when Postfix does not say. */
	bytes: number | null;
	/** The envelope sender; null for the null sender (<>). */
	sender: string | null;
	recipient: string;
	/** The client's address: the per-client bound counts by it; it is never shown. */
	client: string;
}

interface Test {
	sender: string | null;
	recipient: string;
	client: string;
	/** Null until Postfix opened the message's queue file (after its first accepted recipient). */
	queueId: string | null;
}

const LINE = /\/smtpd\[(\d+)\]: (.*)$/;
const QUEUE_ID = "[0-9A-Za-z]+";
const WARN = new RegExp(
	`^(NOQUEUE|${QUEUE_ID}): warn: RCPT from \\S*\\[([^\\]]*)\\]: ${TEST_ADDRESS_NOTE}; from=<([^>]*)> to=<([^>]*)>`,
);
const CLIENT = new RegExp(`^(${QUEUE_ID}): client=`);
const TOO_LARGE = new RegExp(`^warning: (${QUEUE_ID}): queue file size limit exceeded$`);
// Only a break after DATA or BDAT is a message cut short: after RCPT nothing of it was sent, and after
// END-OF-MESSAGE it was taken whole.
const BROKE_OFF = /^(lost connection|timeout) after (DATA|BDAT) \((\d+) bytes\) from /;

/**
 * Reads smtpd's lines (other programs' are passed over) and returns each
 * message to a test address that ended unfinished, once.
 */
export class PostfixLogReader {
	/** The test message of each smtpd process's session, with the lines seen of it. */
	readonly #sessions = new Map<string, Test | null>();

	read(line: string): MailRefusal | null {
		const match = LINE.exec(line);
		if (match === null) return null;
		const [, pid = "", text = ""] = match;
		if (text.startsWith("connect from ") || text.startsWith("disconnect from ")) {
			this.#sessions.delete(pid);
			return null;
		}
		return this.#message(pid, text);
	}

	#message(pid: string, text: string): MailRefusal | null {
		const test = this.#sessions.get(pid) ?? null;
		const warn = WARN.exec(text);
		if (warn !== null) {
			const [, queue = "", client = "", sender = "", recipient = ""] = warn;
			const queueId = queue === "NOQUEUE" ? null : queue;
			// NOQUEUE: a message whose queue file is not open yet, a new one. A second test
			// recipient of the same message changes nothing.
			if (queueId === null || test?.queueId !== queueId)
				this.#sessions.set(pid, { sender: sender === "" ? null : sender, recipient, client, queueId });
			return null;
		}
		const opened = CLIENT.exec(text);
		if (opened !== null) {
			// A queue file opened without a test recipient before it is another message.
			this.#sessions.set(
				pid,
				test !== null && test.queueId === null ? { ...test, queueId: opened[1] ?? "" } : null,
			);
			return null;
		}
		return this.#ending(pid, test, text);
	}

	#ending(pid: string, test: Test | null, text: string): MailRefusal | null {
		if (test === null || test.queueId === null) return null;
		const { sender, recipient, client, queueId } = test;
		const tooLarge = TOO_LARGE.exec(text);
		if (tooLarge !== null && tooLarge[1] === queueId) {
			this.#sessions.set(pid, null);
			return { queueId, kind: "too-large", bytes: null, sender, recipient, client };
		}
		const broke = BROKE_OFF.exec(text);
		if (broke === null) return null;
		this.#sessions.set(pid, null);
		const kind = broke[1] === "timeout" ? "timeout" : "lost";
		return { queueId, kind, bytes: Number(broke[3]), sender, recipient, client };
	}
}

/**
 * Reads an strace log (`strace -f -yy -e trace=%network,read,write,writev`)
 * of a server: the send()-family calls each answer took, on the client's
 * connection and towards Redis, from the read of one request to the next.
 */
const CALL = /^\d+\s+(\w+)\((\d+)<TCP:\[([^\]]+)\]>/;
const SENDS = new Set(["sendto", "sendmsg", "sendmmsg", "send", "write", "writev"]);
const READS = new Set(["recvfrom", "recvmsg", "read", "readv"]);

/**
 * For each request read on a connection to `serverPort`, the number of sends
 * made until the next request came (to the client, and to `otherPort`, the
 * Redis server, when given).
 */
export function sendsPerAnswer(log: string, serverPort: number, otherPort?: number): number[] {
	const served = `:${serverPort}->`;
	const other = otherPort === undefined ? null : `->127.0.0.1:${otherPort}`;
	const counts: number[] = [];
	for (const line of log.split("\n")) {
		const [, call = "", , socket = ""] = CALL.exec(line) ?? [];
		const toClient = socket.includes(served);
		if (READS.has(call) && toClient && /, "(GET|HEAD) /.test(line)) counts.push(0);
		else if (SENDS.has(call) && counts.length > 0 && (toClient || (other !== null && socket.endsWith(other))))
			counts[counts.length - 1] = (counts[counts.length - 1] ?? 0) + 1;
	}
	return counts;
}

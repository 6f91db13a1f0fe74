// `fax ingest`: a received file becomes stored files and then a listed fax.
export { MAX_EMAIL_BYTES, MAX_INPUT_BYTES } from "../document/index.ts";
// Postfix's log: the messages to a test address it did not take whole (`fax watch-mail`).
export { REFUSAL_WINDOW_MS, REFUSALS_PER_CLIENT, RefusalBound, refusalFile } from "./mail-refusals.ts";
export { type MailRefusal, PostfixLogReader, TEST_ADDRESS_NOTE } from "./postfix-log.ts";
export { type Received, type ReceivedFile, receiveFax, refusalReason, reportOf } from "./receive-fax.ts";
// HylaFAX's receive queue and session logs: what `fax receive-hylafax` hands over.
export {
	handedOverSessionLog,
	RECVQ_NAME,
	RECVQ_READ_LIMIT,
	recvqCall,
	recvqReceivedFile,
	SESSION_LOG_NAME,
	SESSION_LOG_READ_LIMIT,
} from "./recvq.ts";
export { type Reprocessed, reprocessFax } from "./reprocess-fax.ts";

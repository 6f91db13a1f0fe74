// What waits in the receivers' queues: faxes and mail not handed over to the
// service yet, as /metrics reports them for the alerts (deploy/prometheus).
export { type QueueReading, type ReceiverQueues, receiverQueues } from "./receiver-queues.ts";

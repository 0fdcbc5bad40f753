// The slots of a recorded transaction's parameters (bench/statements.ts, `recordedTransaction`),
// filled by the bare SQL Worker for each request: the record the request names, and the id the
// replayed write made.
export const RECORD_SLOT = '{record}';
export const MADE_SLOT = '{made}';
/** The `message` of the request's JSON body (a batch of bench/reply-batch.ts). */
export const MESSAGE_SLOT = '{message}';

// The slots of a batch's parameters (bench/reply-batch.ts), filled by the bare SQL Worker for each
// request: the record the request names, and the message its body carries.
export const RECORD_SLOT = '{record}';
/** The `message` of the request's JSON body. */
export const MESSAGE_SLOT = '{message}';

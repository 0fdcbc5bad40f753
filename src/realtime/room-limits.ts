// The room's limits as plain values, with no import: the chat widget (src/widget/browser/, run in
// a customer's page) shares them with the Worker without pulling in the protocol's schemas.

/** Frames larger than this are refused with an error frame; the socket stays open. */
export const MAX_FRAME_BYTES = 16_384;
export const MAX_MESSAGE_LENGTH = 10_000;
/** Messages the welcome frame replays to a new socket. */
export const HISTORY_ON_JOIN = 50;

/** Thrown by a consumer that cannot do its work yet (not a failure): the message is queued again, to come back after the delay. */
export class RetryLater extends Error {
  constructor(
    readonly seconds: number,
    reason: string,
  ) {
    super(reason);
  }
}

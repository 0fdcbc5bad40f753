/** Thrown by a consumer that cannot do its work yet (not a failure): the queue delivers the message again after the delay. */
export class RetryLater extends Error {
  constructor(readonly seconds: number, reason: string) {
    super(reason);
  }
}

/**
 * Thrown from a consumer's handler to dead-letter its message at once, whatever its delivery
 * count: for a message no retry will ever handle (a poison message, a reference to nothing).
 */
export class DeadLetterError extends Error {
  override readonly name = "DeadLetterError";
  /** Recorded as the dead letter's `DeadLetterReason`. */
  readonly reason: string;
  /** Recorded as the dead letter's `DeadLetterErrorDescription`. */
  readonly description: string | undefined;

  /** A dead-lettering of the handler's message, with why. */
  constructor(reason: string, description?: string, options?: { cause?: unknown }) {
    super(description === undefined ? reason : `${reason}: ${description}`, options);
    this.reason = reason;
    this.description = description;
  }
}

import type { ReceivedMessage } from "./message.js";
import type { ReceiptHandle } from "./receipt-handle.js";

/** Options every waiting call accepts. */
export interface WaitOptions {
  /** Ends the wait early; the call then resolves as if nothing came. */
  signal?: AbortSignal;
}

/** One locked session: its messages in order, its state, its lock. */
export interface SessionClient {
  readonly sessionId: string;
  /** When the session lock ends unless renewed; moved by `renewSessionLock`. */
  readonly sessionExpiresAt: Date;
  /** Receives the session's next message, waiting up to `timeoutMs`; `null` when none came. */
  receiveMessage(timeoutMs?: number, options?: WaitOptions): Promise<ReceivedMessage | null>;
  /** Receives up to `maxMessages` of the session in order. */
  receiveMessages(maxMessages: number, timeoutMs?: number, options?: WaitOptions): Promise<ReceivedMessage[]>;
  completeMessage(receipt: ReceiptHandle | string): Promise<void>;
  /** Puts a message back at the head of the session. */
  abandonMessage(receipt: ReceiptHandle | string): Promise<void>;
  deadLetterMessage(receipt: ReceiptHandle | string, reason: string, description?: string): Promise<void>;
  /** Extends the session lock from now; resolves the new expiry. */
  renewSessionLock(): Promise<Date>;
  getSessionState(): Promise<Uint8Array | null>;
  /** Stores the session's state (a string as UTF-8); `null` clears it. */
  setSessionState(state: Uint8Array | string | null): Promise<void>;
  /** Releases the session so another client can accept it at once. */
  closeSession(): Promise<void>;
}

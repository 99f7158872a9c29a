import type { QueueAdmin } from "./admin.js";
import type { Capabilities, ProviderType } from "./capabilities.js";
import type { MessageInput, ReceivedMessage } from "./message.js";
import type { ReceiptHandle } from "./receipt-handle.js";

/** Options every waiting call accepts. */
export interface WaitOptions {
  /** Ends the wait early; the call then resolves as if nothing came. */
  signal?: AbortSignal;
}

/** Counters of what a client has done since it was created. */
export interface ClientMetrics {
  sent: number;
  received: number;
  completed: number;
  abandoned: number;
  deadLettered: number;
  renewed: number;
  /** Attempts repeated after a transient error. */
  retries: number;
  /** Calls that failed, by error code. */
  errors: Record<string, number>;
}

/** What an application uses to send and receive, the same on every provider. */
export interface QueueClient {
  /** Sends one message; resolves its id. */
  sendMessage(queue: string, message: MessageInput): Promise<string>;
  /** Sends many messages, split to the provider's batch limit; resolves their ids in order. */
  sendMessages(queue: string, messages: readonly MessageInput[]): Promise<string[]>;
  /** Receives one message, waiting up to `timeoutMs` (default 0) for one; `null` when none came. */
  receiveMessage(queue: string, timeoutMs?: number, options?: WaitOptions): Promise<ReceivedMessage | null>;
  /** Receives up to `maxMessages`, waiting up to `timeoutMs` for the first; `[]` when none came. */
  receiveMessages(
    queue: string,
    maxMessages: number,
    timeoutMs?: number,
    options?: WaitOptions,
  ): Promise<ReceivedMessage[]>;
  /** Removes a received message for good. */
  completeMessage(receipt: ReceiptHandle | string): Promise<void>;
  /** Gives a received message back, to be delivered again now or after `delayMs`. */
  abandonMessage(receipt: ReceiptHandle | string, options?: { delayMs?: number }): Promise<void>;
  /** Moves a received message to its queue's dead-letter queue, with why. */
  deadLetterMessage(receipt: ReceiptHandle | string, reason: string, description?: string): Promise<void>;
  /** Extends a message's lock from now by the queue's lock duration; resolves the new expiry. */
  renewMessageLock(receipt: ReceiptHandle | string): Promise<Date>;
  /** Locks a session: the one named, or the next that has messages (waiting up to `timeoutMs`). */
  acceptSession(
    queue: string,
    sessionId?: string,
    timeoutMs?: number,
    options?: WaitOptions,
  ): Promise<SessionClient>;
  readonly providerType: ProviderType;
  readonly capabilities: Capabilities;
  /** Creating, inspecting and emptying queues. */
  readonly admin: QueueAdmin;
  /** What this client has done so far. */
  readonly metrics: Readonly<ClientMetrics>;
  /** True when the provider supports sessions, natively or emulated. */
  supportsSessions(): boolean;
  /** True when the provider sends and receives in batches. */
  supportsBatching(): boolean;
  /** Ends waiting receives (they resolve empty), releases the provider; later calls fail with `ClientClosed`. */
  close(): Promise<void>;
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

import type { QueueAdmin } from "../core/admin.js";
import type { Capabilities, ProviderType } from "../core/capabilities.js";
import type { BatchEntryResult, QueueError } from "../core/errors.js";
import type { ReceivedMessage } from "../core/message.js";
import type { OperationContext, OutgoingMessage, QueueProvider, SessionProvider } from "../core/provider.js";
import type { ReceiptHandle } from "../core/receipt-handle.js";

/** The provider operations a {@link FailingProvider} can be told to fail. */
export type ProviderOperation =
  | "sendMessages"
  | "receiveMessages"
  | "completeMessage"
  | "abandonMessage"
  | "deadLetterMessage"
  | "renewMessageLock"
  | "acceptSession";

/**
 * A provider double for tests: it forwards to a real provider, counts every call, and fails the
 * next calls of an operation on command (`failNext("sendMessages", error, 2)`).
 */
export class FailingProvider implements QueueProvider {
  readonly #inner: QueueProvider;
  readonly #failures = new Map<ProviderOperation, QueueError[]>();
  /** How many times each operation was called, failed calls included. */
  readonly calls: Record<ProviderOperation, number> = {
    sendMessages: 0,
    receiveMessages: 0,
    completeMessage: 0,
    abandonMessage: 0,
    deadLetterMessage: 0,
    renewMessageLock: 0,
    acceptSession: 0,
  };

  constructor(inner: QueueProvider) {
    this.#inner = inner;
  }

  get providerType(): ProviderType {
    return this.#inner.providerType;
  }

  get capabilities(): Capabilities {
    return this.#inner.capabilities;
  }

  get admin(): QueueAdmin {
    return this.#inner.admin;
  }

  /** Makes the next `times` calls of `operation` fail with `error` before reaching the real provider. */
  failNext(operation: ProviderOperation, error: QueueError, times = 1): void {
    const queued = this.#failures.get(operation) ?? [];
    for (let i = 0; i < times; i++) queued.push(error);
    this.#failures.set(operation, queued);
  }

  #enter(operation: ProviderOperation): void {
    this.calls[operation]++;
    const failure = this.#failures.get(operation)?.shift();
    if (failure !== undefined) throw failure;
  }

  async sendMessages(
    queue: string,
    messages: readonly OutgoingMessage[],
    context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    this.#enter("sendMessages");
    return this.#inner.sendMessages(queue, messages, context);
  }

  async receiveMessages(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    this.#enter("receiveMessages");
    return this.#inner.receiveMessages(queue, maxMessages, waitMs, context);
  }

  async completeMessage(receipt: ReceiptHandle, context: OperationContext): Promise<void> {
    this.#enter("completeMessage");
    return this.#inner.completeMessage(receipt, context);
  }

  async abandonMessage(receipt: ReceiptHandle, delayMs: number, context: OperationContext): Promise<void> {
    this.#enter("abandonMessage");
    return this.#inner.abandonMessage(receipt, delayMs, context);
  }

  async deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
    context: OperationContext,
  ): Promise<void> {
    this.#enter("deadLetterMessage");
    return this.#inner.deadLetterMessage(receipt, reason, description, context);
  }

  async renewMessageLock(receipt: ReceiptHandle, context: OperationContext): Promise<Date> {
    this.#enter("renewMessageLock");
    return this.#inner.renewMessageLock(receipt, context);
  }

  async acceptSession(
    queue: string,
    sessionId: string | undefined,
    waitMs: number,
    context: OperationContext,
  ): Promise<SessionProvider> {
    this.#enter("acceptSession");
    return this.#inner.acceptSession(queue, sessionId, waitMs, context);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

import { receiveInRuns } from "./batch.js";
import { QueueError } from "./errors.js";
import type { Invoker } from "./invoker.js";
import { bodyBytes, type ReceivedMessage } from "./message.js";
import type { OperationContext, QueueProvider, SessionProvider } from "./provider.js";
import type { ClientMetrics, SessionClient, WaitOptions } from "./queue-client.js";
import type { ReceiptHandle } from "./receipt-handle.js";
import type { ClientTelemetry } from "./telemetry/client-telemetry.js";
import { type SettleMethod, tracedReceive, tracedSettle } from "./telemetry/traced-operations.js";
import {
  checkReason,
  checkReceipt,
  MAX_RECEIVE_COUNT,
  MAX_WAIT_MS,
  validateCount,
  validateDuration,
} from "./validation.js";

/** The largest session state accepted, in bytes (Service Bus's limit for a standard namespace). */
export const MAX_SESSION_STATE_BYTES = 256 * 1024;

/** The telemetry of the client that accepted a session, and the session's queue. */
export interface SessionTelemetry {
  readonly telemetry: ClientTelemetry;
  readonly queue: string;
}

/**
 * The {@link SessionClient} over a {@link SessionProvider}, with the same checks, retries and
 * deadlines as the queue client that accepted it. Not shared: one holder per session.
 */
export class StandardSessionClient implements SessionClient {
  readonly #session: SessionProvider;
  readonly #invoker: Invoker;
  readonly #metrics: ClientMetrics;
  readonly #provider: Pick<QueueProvider, "providerType" | "capabilities">;
  readonly #traced: SessionTelemetry | undefined;
  #closed = false;

  constructor(
    session: SessionProvider,
    provider: Pick<QueueProvider, "providerType" | "capabilities">,
    invoker: Invoker,
    metrics: ClientMetrics,
    traced?: SessionTelemetry,
  ) {
    this.#session = session;
    this.#provider = provider;
    this.#invoker = invoker;
    this.#metrics = metrics;
    this.#traced = traced;
  }

  get sessionId(): string {
    return this.#session.sessionId;
  }

  get sessionExpiresAt(): Date {
    return this.#session.sessionExpiresAt;
  }

  async receiveMessage(timeoutMs = 0, options?: WaitOptions): Promise<ReceivedMessage | null> {
    const [message] = await this.receiveMessages(1, timeoutMs, options);
    return message ?? null;
  }

  async receiveMessages(
    maxMessages: number,
    timeoutMs = 0,
    options?: WaitOptions,
  ): Promise<ReceivedMessage[]> {
    this.#assertOpen();
    validateCount("maxMessages", maxMessages, 1, MAX_RECEIVE_COUNT);
    validateDuration("timeoutMs", timeoutMs, 0, MAX_WAIT_MS);
    const receive = () =>
      receiveInRuns(maxMessages, this.#provider.capabilities.maxBatchSize, timeoutMs, (max, wait) =>
        this.#invoker.run(
          "receiveMessages",
          (context) => this.#session.receiveMessages(max, wait, context),
          wait,
          options?.signal,
        ),
      );
    const traced = this.#traced;
    const received = await (traced === undefined
      ? receive()
      : tracedReceive(traced.telemetry, traced.queue, receive));
    this.#metrics.received += received.length;
    return received;
  }

  async completeMessage(receipt: ReceiptHandle | string): Promise<void> {
    const handle = this.#receipt(receipt);
    await this.#settle("completeMessage", handle, (context) =>
      this.#session.completeMessage(handle, context),
    );
    this.#metrics.completed++;
  }

  async abandonMessage(receipt: ReceiptHandle | string): Promise<void> {
    const handle = this.#receipt(receipt);
    await this.#settle("abandonMessage", handle, (context) => this.#session.abandonMessage(handle, context));
    this.#metrics.abandoned++;
  }

  async deadLetterMessage(
    receipt: ReceiptHandle | string,
    reason: string,
    description?: string,
  ): Promise<void> {
    const handle = this.#receipt(receipt);
    checkReason(reason, description);
    await this.#settle("deadLetterMessage", handle, (context) =>
      this.#session.deadLetterMessage(handle, reason, description, context),
    );
    this.#metrics.deadLettered++;
  }

  async renewSessionLock(): Promise<Date> {
    this.#assertOpen();
    const expiresAt = await this.#invoker.run("renewSessionLock", (context) =>
      this.#session.renewSessionLock(context),
    );
    this.#metrics.renewed++;
    return expiresAt;
  }

  async getSessionState(): Promise<Uint8Array | null> {
    this.#assertOpen();
    return this.#invoker.run("getSessionState", (context) => this.#session.getSessionState(context));
  }

  async setSessionState(state: Uint8Array | string | null): Promise<void> {
    this.#assertOpen();
    if (!this.#provider.capabilities.sessionState)
      throw new QueueError("Unsupported", "this provider cannot store session state");
    if (state !== null && typeof state !== "string" && !(state instanceof Uint8Array))
      throw new QueueError("Validation", "session state must be bytes, a string or null");
    const bytes = state === null ? null : bodyBytes(state);
    if (bytes !== null && bytes.byteLength > MAX_SESSION_STATE_BYTES)
      throw new QueueError(
        "Validation",
        `session state is ${bytes.byteLength} bytes; the limit is ${MAX_SESSION_STATE_BYTES} bytes`,
      );
    await this.#invoker.run("setSessionState", (context) => this.#session.setSessionState(bytes, context));
  }

  async closeSession(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#invoker.closed) return;
    await this.#invoker.run("closeSession", (context) => this.#session.closeSession(context));
  }

  #assertOpen(): void {
    this.#invoker.assertOpen();
    if (this.#closed) throw new QueueError("ClientClosed", `session ${this.sessionId} has been closed`);
  }

  /** Runs a settlement of `handle`'s message through the invoker, traced when telemetry records. */
  #settle(
    what: SettleMethod,
    handle: ReceiptHandle,
    call: (context: OperationContext) => Promise<void>,
  ): Promise<void> {
    const run = () => this.#invoker.run(what, call);
    const traced = this.#traced;
    return traced === undefined ? run() : tracedSettle(traced.telemetry, what, handle.queue, run);
  }

  #receipt(receipt: ReceiptHandle | string): ReceiptHandle {
    this.#assertOpen();
    return checkReceipt(receipt, this.#provider.providerType);
  }
}

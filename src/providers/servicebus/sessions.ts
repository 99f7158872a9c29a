import type {
  ServiceBusClient,
  ServiceBusReceivedMessage,
  ServiceBusSessionReceiver,
  ServiceBusSessionReceiverOptions,
} from "@azure/service-bus";
import { withOwnSignal } from "../../core/abort-watch.js";
import { type Clock, sleep } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { ReceivedMessage } from "../../core/message.js";
import type { OperationContext, SessionProvider } from "../../core/provider.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { fromSdkError, isAbort, type Redact, sdkCode } from "./errors.js";
import type { HeldLocks } from "./held-locks.js";
import { deadLetterOptions, toDelivery } from "./message-mapping.js";
import type { Settlement } from "./settlement.js";

/**
 * The shortest wait a receive gives the SDK: it asks for messages, then drains what the link
 * still owes, and a wait of 0 could end before messages already on the queue were sent.
 */
export const MIN_RECEIVE_WAIT_MS = 100;

/** How often an accept of the next session asks again while none is free (the emulators answer at once). */
const ACCEPT_POLL_MS = 200;

/**
 * Peek-lock, bodies and dates as they are on the wire, and no automatic lock renewal: the
 * caller renews, as the contract says, so a session it stops renewing is lost on time.
 */
const SESSION_OPTIONS: ServiceBusSessionReceiverOptions = {
  receiveMode: "peekLock",
  skipParsingBodyAsJson: true,
  skipConvertingDate: true,
  maxAutoLockRenewalDurationInMs: 0,
};

/** What a session receiver needs of its provider. */
export interface SessionDeps {
  readonly client: ServiceBusClient;
  readonly clock: Clock;
  readonly held: HeldLocks;
  readonly settlement: Settlement;
  readonly redact: Redact;
  readonly providerType: string;
}

/** True when the SDK failed an accept of the next session because none was free. */
export function noSessionFree(error: unknown): boolean {
  const code = sdkCode(error);
  return (
    code === "ServiceTimeout" ||
    code === "ServiceUnavailableError" ||
    code === "OperationTimeoutError" ||
    /no unlocked sessions/i.test(String((error as Error | null)?.message))
  );
}

/**
 * Locks a session of `queue` through the SDK: the one named, or the next free one, asked again
 * until `waitMs` has passed (Azure holds such a request up to its timeout; the emulators refuse
 * at once), then `NoSessionAvailable`.
 */
export async function acceptSdkSession(
  deps: SessionDeps,
  queue: string,
  sessionId: string | undefined,
  waitMs: number,
  signal: AbortSignal,
): Promise<ServiceBusSessionReceiver> {
  const what = `acceptSession on ${queue}`;
  if (sessionId !== undefined) {
    try {
      return await withOwnSignal(signal, (abortSignal) =>
        deps.client.acceptSession(queue, sessionId, { ...SESSION_OPTIONS, abortSignal }),
      );
    } catch (error) {
      throw fromSdkError(error, what, deps.redact);
    }
  }
  const deadline = deps.clock.now() + waitMs;
  for (;;) {
    const remaining = deadline - deps.clock.now();
    const attempt = new AbortController();
    const onAbort = () => attempt.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = deps.clock.setTimer(() => attempt.abort(), Math.max(remaining, ACCEPT_POLL_MS), true);
    try {
      return await deps.client.acceptNextSession(queue, { ...SESSION_OPTIONS, abortSignal: attempt.signal });
    } catch (error) {
      if (signal.aborted)
        throw new QueueError("ClientClosed", `${what}: the client closed`, { cause: error });
      if (!noSessionFree(error) && !isAbort(error)) throw fromSdkError(error, what, deps.redact);
    } finally {
      timer.cancel();
      signal.removeEventListener("abort", onAbort);
    }
    const left = deadline - deps.clock.now();
    if (left <= 0)
      throw new QueueError("NoSessionAvailable", `no session of ${queue} was free within ${waitMs} ms`);
    await sleep(deps.clock, Math.min(ACCEPT_POLL_MS, left), signal);
    if (signal.aborted) throw new QueueError("ClientClosed", `${what}: the client closed`);
  }
}

/** Receives up to `max` messages through `receiver`, waiting up to `waitMs`; `[]` when the caller gave up. */
export async function receiveThrough(
  receiver: ServiceBusSessionReceiver,
  max: number,
  waitMs: number,
  signal: AbortSignal,
): Promise<ServiceBusReceivedMessage[]> {
  try {
    // A signal of its own: the SDK leaves a listener on every signal it is given.
    return await withOwnSignal(signal, (abortSignal) =>
      receiver.receiveMessages(max, { maxWaitTimeInMs: Math.max(waitMs, MIN_RECEIVE_WAIT_MS), abortSignal }),
    );
  } catch (error) {
    if (isAbort(error) && signal.aborted) return [];
    throw error;
  }
}

/** One locked Service Bus session, as the contract's {@link SessionProvider}. */
export class ServiceBusSession implements SessionProvider {
  readonly sessionId: string;
  readonly #receiver: ServiceBusSessionReceiver;
  readonly #queue: string;
  readonly #deps: SessionDeps;
  readonly #onClosed: (session: ServiceBusSession) => void;
  #expiresAt: Date;

  constructor(
    receiver: ServiceBusSessionReceiver,
    queue: string,
    deps: SessionDeps,
    onClosed: (session: ServiceBusSession) => void,
  ) {
    this.#receiver = receiver;
    this.sessionId = receiver.sessionId;
    this.#queue = queue;
    this.#deps = deps;
    this.#onClosed = onClosed;
    this.#expiresAt = receiver.sessionLockedUntilUtc ?? new Date(deps.clock.now());
  }

  get sessionExpiresAt(): Date {
    return this.#expiresAt;
  }

  async receiveMessages(
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    try {
      const messages = await receiveThrough(this.#receiver, maxMessages, waitMs, context.signal);
      const now = this.#deps.clock.now();
      return messages.map((message) => {
        this.#deps.held.hold({ message, receiver: this.#receiver }, now);
        return toDelivery(message, this.#queue, this.#deps.providerType, now);
      });
    } catch (error) {
      throw this.#lost(error, "receiveMessages");
    }
  }

  completeMessage(receipt: ReceiptHandle): Promise<void> {
    return this.#deps.settlement.settle(receipt, "completeMessage", (receiver, message) =>
      receiver.completeMessage(message),
    );
  }

  abandonMessage(receipt: ReceiptHandle): Promise<void> {
    return this.#deps.settlement.settle(receipt, "abandonMessage", (receiver, message) =>
      receiver.abandonMessage(message),
    );
  }

  deadLetterMessage(receipt: ReceiptHandle, reason: string, description: string | undefined): Promise<void> {
    return this.#deps.settlement.settle(receipt, "deadLetterMessage", (receiver, message) =>
      receiver.deadLetterMessage(message, deadLetterOptions(reason, description)),
    );
  }

  async renewSessionLock(): Promise<Date> {
    try {
      this.#expiresAt = await this.#receiver.renewSessionLock();
      return this.#expiresAt;
    } catch (error) {
      throw this.#lost(error, "renewSessionLock");
    }
  }

  async getSessionState(): Promise<Uint8Array | null> {
    try {
      return stateBytes(await this.#receiver.getSessionState());
    } catch (error) {
      throw this.#lost(error, "getSessionState");
    }
  }

  async setSessionState(state: Uint8Array | null): Promise<void> {
    try {
      // Bytes go as they are; `null` as JSON's null, which the SDK reads back as no state.
      await this.#receiver.setSessionState(state === null ? null : Buffer.from(state));
    } catch (error) {
      throw this.#lost(error, "setSessionState");
    }
  }

  async closeSession(): Promise<void> {
    this.#deps.held.releaseAll(this.#receiver);
    this.#onClosed(this);
    try {
      await this.#receiver.close();
    } catch (error) {
      throw fromSdkError(error, `closeSession ${this.sessionId} on ${this.#queue}`, this.#deps.redact);
    }
  }

  /** The error of a failed session call; a session whose receiver is gone is lost. */
  #lost(error: unknown, what: string): QueueError {
    const failure = fromSdkError(
      error,
      `${what} of session ${this.sessionId} on ${this.#queue}`,
      this.#deps.redact,
    );
    if (this.#receiver.isClosed && failure.code !== "SessionLockLost")
      return new QueueError("SessionLockLost", failure.message, { cause: error });
    return failure;
  }
}

/**
 * Session state as bytes. The SDK writes bytes as given but parses what it reads as JSON when it
 * can, so a state that is JSON text comes back as the value it holds: written again as JSON (the
 * same value, perhaps not the same spacing). A JSON `null` is no state.
 */
function stateBytes(state: unknown): Uint8Array | null {
  if (state === null || state === undefined) return null;
  if (state instanceof Uint8Array) return state;
  return Buffer.from(JSON.stringify(state), "utf8");
}

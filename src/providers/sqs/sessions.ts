import { sleep } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { ReceivedMessage } from "../../core/message.js";
import type { OperationContext, SessionProvider } from "../../core/provider.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { deadLetter } from "./dead-letters.js";
import type { DecodedMessage } from "./message-mapping.js";
import type { SqsQueue } from "./queue-urls.js";
import { parseReceipt } from "./receipts.js";
import { receiveBatch } from "./receive-batch.js";
import type { SqsContext } from "./sqs-context.js";
import { changeVisibility, changeVisibilityOfAll, visibilitySeconds } from "./visibility.js";

/** Receives of one scan for a group before it gives up (ten messages each). */
export const MAX_SCAN_ROUNDS = 10;
/** The first pause between scans while only other groups' messages are visible; it doubles each time. */
export const FIRST_SCAN_PAUSE_MS = 1_000;
/** The longest pause between two scans. */
export const MAX_SCAN_PAUSE_MS = 10_000;
/** A buffered message is not handed out this close to the end of its lock. */
export const LOCK_MARGIN_MS = 500;
/** How often a session holding unsettled messages looks whether they were settled. */
const SETTLED_CHECK_MS = 100;

// Releases run to their end even when the call that needed them is cancelled: nothing is left stranded.
const RELEASE_SIGNAL = new AbortController().signal;

function releaseContext(context: OperationContext): OperationContext {
  return { signal: RELEASE_SIGNAL, timeoutMs: context.timeoutMs };
}

/** What a scan for a group found. */
interface Scan {
  /** The group: the one asked for, or the first one seen. */
  readonly group: string | undefined;
  /** Messages of that group, in order, locked by this client. */
  readonly messages: DecodedMessage[];
  /** Whether messages of other groups were visible (and were made visible again). */
  readonly sawOthers: boolean;
}

/**
 * One scan: receives until messages of `group` (or, without one, of the first group that comes)
 * show up, holding other groups' messages meanwhile so that SQS hands out different groups, then
 * makes those visible again at once. Only the first receive waits.
 */
async function scan(
  sqs: SqsContext,
  queue: SqsQueue,
  wanted: string | undefined,
  waitMs: number,
  context: OperationContext,
): Promise<Scan> {
  let group = wanted;
  const mine: DecodedMessage[] = [];
  const others: string[] = [];
  try {
    for (let round = 0; round < MAX_SCAN_ROUNDS && mine.length === 0; round++) {
      const batch = await receiveBatch(sqs, queue, 10, round === 0 ? waitMs : 0, context);
      if (batch.length === 0) break;
      for (const message of batch) {
        group ??= message.groupId;
        if (message.groupId === group) mine.push(message);
        else {
          sqs.received.forget(message.receiptHandle);
          others.push(message.receiptHandle);
        }
      }
    }
  } finally {
    if (others.length > 0)
      await changeVisibilityOfAll(sqs.http, queue.url, others, 0, releaseContext(context));
  }
  return { group, messages: mine, sawOthers: others.length > 0 };
}

/**
 * Waits up to `waitMs` for messages of a group (or of any group). While only other groups'
 * messages are visible, a long poll would return them at once, so scans are spaced out
 * (1 s, 2 s, 4 s ... 10 s): each scan counts one receive on the messages it hands back.
 */
async function takeGroup(
  sqs: SqsContext,
  queue: SqsQueue,
  wanted: string | undefined,
  waitMs: number,
  context: OperationContext,
): Promise<Scan> {
  const deadline = sqs.clock.now() + waitMs;
  let pause = FIRST_SCAN_PAUSE_MS;
  let sawOthers = false;
  for (;;) {
    const found = await scan(sqs, queue, wanted, sawOthers ? 0 : deadline - sqs.clock.now(), context);
    if (found.messages.length > 0) return found;
    const left = deadline - sqs.clock.now();
    if (left <= 0 || context.signal.aborted) return found;
    sawOthers = found.sawOthers;
    if (sawOthers) {
      await sleep(sqs.clock, Math.min(pause, left), context.signal);
      pause = Math.min(pause * 2, MAX_SCAN_PAUSE_MS);
    }
  }
}

/**
 * Accepts a session of a FIFO queue. Without an id it takes the next group that has messages
 * (`NoSessionAvailable` after `waitMs` without one). With an id it scans once for that group's
 * messages and returns the session whether or not it found any: SQS cannot lock a group that
 * has no message in flight, nor receive one group on request.
 */
export async function acceptSession(
  sqs: SqsContext,
  queue: SqsQueue,
  sessionId: string | undefined,
  waitMs: number,
  context: OperationContext,
  onClose: (session: SqsSession) => void,
): Promise<SqsSession> {
  if (!queue.fifo)
    throw new QueueError(
      "Unsupported",
      `sessions on SQS are message groups of a FIFO queue; ${queue.name} is a standard queue`,
    );
  const settings = await sqs.directory.settings(queue, context);
  const found = await takeGroup(sqs, queue, sessionId, sessionId === undefined ? waitMs : 0, context);
  if (context.signal.aborted)
    throw new QueueError("ClientClosed", "the client closed while accepting a session");
  const group = found.group;
  if (group === undefined || (sessionId === undefined && found.messages.length === 0))
    throw new QueueError(
      "NoSessionAvailable",
      `no message group of ${queue.name} had messages within ${waitMs} ms`,
    );
  const lockedUntilMs =
    found.messages[0]?.delivery.receiptHandle.expiresAtMs ?? sqs.clock.now() + settings.lockDurationMs;
  return new SqsSession(sqs, queue, group, found.messages, lockedUntilMs, onClose);
}

/**
 * A session emulated on an SQS FIFO message group. It holds the group only while it holds one of
 * its messages in flight (SQS then hands none of the group to anyone else); messages it received
 * but has not handed out yet wait in a buffer, in order, within their locks.
 */
export class SqsSession implements SessionProvider {
  readonly sessionId: string;
  readonly #sqs: SqsContext;
  readonly #queue: SqsQueue;
  readonly #onClose: (session: SqsSession) => void;
  #buffer: DecodedMessage[];
  #bufferLockedUntilMs: number;
  readonly #delivered = new Map<string, DecodedMessage>();
  #expiresAtMs: number;

  constructor(
    sqs: SqsContext,
    queue: SqsQueue,
    sessionId: string,
    buffered: DecodedMessage[],
    lockedUntilMs: number,
    onClose: (session: SqsSession) => void,
  ) {
    this.#sqs = sqs;
    this.#queue = queue;
    this.sessionId = sessionId;
    this.#buffer = buffered;
    this.#bufferLockedUntilMs = lockedUntilMs;
    this.#expiresAtMs = lockedUntilMs;
    this.#onClose = onClose;
  }

  /** When the locks of the messages this session holds end, unless renewed. */
  get sessionExpiresAt(): Date {
    return new Date(this.#expiresAtMs);
  }

  async receiveMessages(
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    const deadline = this.#sqs.clock.now() + waitMs;
    await this.#dropStaleBuffer(context);
    if (this.#buffer.length === 0) {
      // While a message of the group is in flight SQS hands out no other: wait for it to be settled.
      while (this.#delivered.size > 0 && this.#sqs.clock.now() < deadline && !context.signal.aborted)
        await sleep(
          this.#sqs.clock,
          Math.min(SETTLED_CHECK_MS, deadline - this.#sqs.clock.now()),
          context.signal,
        );
      if (this.#delivered.size > 0 || context.signal.aborted) return [];
      const found = await takeGroup(
        this.#sqs,
        this.#queue,
        this.sessionId,
        deadline - this.#sqs.clock.now(),
        context,
      );
      if (found.messages.length === 0) return [];
      this.#buffer = found.messages;
      this.#bufferLockedUntilMs = found.messages[0]!.delivery.receiptHandle.expiresAtMs;
      this.#expiresAtMs = this.#bufferLockedUntilMs;
    }
    const handed = this.#buffer.splice(0, maxMessages);
    for (const message of handed) this.#delivered.set(message.receiptHandle, message);
    return handed.map((message) => message.delivery);
  }

  async completeMessage(receipt: ReceiptHandle, context: OperationContext): Promise<void> {
    const { url, handle } = this.#own(receipt);
    await this.#sqs.deletes.delete(url, handle, context);
    this.#settled(handle);
  }

  async abandonMessage(receipt: ReceiptHandle, context: OperationContext): Promise<void> {
    const { url, handle } = this.#own(receipt);
    await changeVisibility(this.#sqs.http, url, handle, 0, context);
    this.#settled(handle);
    // Later messages of the group go back too, so the abandoned one comes first again.
    await this.#releaseBuffer(context);
  }

  async deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
    context: OperationContext,
  ): Promise<void> {
    const { handle } = this.#own(receipt);
    await deadLetter(this.#sqs, receipt, reason, description, context);
    this.#settled(handle);
  }

  async renewSessionLock(context: OperationContext): Promise<Date> {
    const settings = await this.#sqs.directory.settings(this.#queue, context);
    const handles = [...this.#buffer.map((message) => message.receiptHandle), ...this.#delivered.keys()];
    const lockedUntilMs = this.#sqs.clock.now() + settings.lockDurationMs;
    await changeVisibilityOfAll(
      this.#sqs.http,
      this.#queue.url,
      handles,
      visibilitySeconds(settings.lockDurationMs),
      context,
    );
    for (const handle of handles) this.#sqs.received.extend(handle, lockedUntilMs);
    this.#bufferLockedUntilMs = lockedUntilMs;
    this.#expiresAtMs = lockedUntilMs;
    return new Date(lockedUntilMs);
  }

  async getSessionState(): Promise<Uint8Array | null> {
    throw new QueueError("Unsupported", "SQS message groups have no session state");
  }

  async setSessionState(): Promise<void> {
    throw new QueueError("Unsupported", "SQS message groups have no session state");
  }

  /** Makes every message the session holds visible again at once, handed out or not. */
  async closeSession(context: OperationContext): Promise<void> {
    const handles = [...this.#buffer.map((message) => message.receiptHandle), ...this.#delivered.keys()];
    this.#buffer = [];
    this.#delivered.clear();
    this.#onClose(this);
    for (const handle of handles) this.#sqs.received.forget(handle);
    if (handles.length > 0)
      await changeVisibilityOfAll(this.#sqs.http, this.#queue.url, handles, 0, releaseContext(context));
  }

  // Buffered messages whose lock is about to end go back as a whole, so none is handed out late or out of order.
  async #dropStaleBuffer(context: OperationContext): Promise<void> {
    if (this.#buffer.length > 0 && this.#sqs.clock.now() + LOCK_MARGIN_MS >= this.#bufferLockedUntilMs)
      await this.#releaseBuffer(context);
  }

  async #releaseBuffer(context: OperationContext): Promise<void> {
    const handles = this.#buffer.map((message) => message.receiptHandle);
    this.#buffer = [];
    for (const handle of handles) this.#sqs.received.forget(handle);
    if (handles.length > 0)
      await changeVisibilityOfAll(this.#sqs.http, this.#queue.url, handles, 0, releaseContext(context));
  }

  #settled(handle: string): void {
    this.#delivered.delete(handle);
    this.#sqs.received.forget(handle);
  }

  #own(receipt: ReceiptHandle): { url: string; handle: string } {
    if (receipt.queue !== this.#queue.name)
      throw new QueueError(
        "InvalidReceipt",
        `this receipt belongs to ${receipt.queue}, not to this session's queue`,
      );
    const parsed = parseReceipt(receipt);
    this.#sqs.received.assertHolds(parsed.handle);
    return parsed;
  }
}

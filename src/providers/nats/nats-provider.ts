import type { Msg } from "@nats-io/transport-node";
import type { QueueAdmin } from "../../core/admin.js";
import { awaitQueue, noQueueToAcceptFrom } from "../../core/await-queue.js";
import type { Capabilities } from "../../core/capabilities.js";
import { type Clock, systemClock } from "../../core/clock.js";
import type { ProviderConfig } from "../../core/config.js";
import { type BatchEntryResult, QueueError } from "../../core/errors.js";
import type { ReceivedMessage } from "../../core/message.js";
import type {
  OperationContext,
  OutgoingMessage,
  ProviderTelemetry,
  QueueProvider,
  SessionProvider,
} from "../../core/provider.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEFAULT_OPERATION_TIMEOUT_MS } from "../../core/standard-queue-client.js";
import { serverOf } from "../../core/telemetry/server-address.js";
import { fullCapabilities } from "../../rules/full-capabilities.js";
import { maxMessageBytesOf } from "../../rules/limits.js";
import { newMessageId } from "../../rules/message-ids.js";
import { resolveQueueDefaults } from "../../rules/queue-defaults.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { eraseStored, signalDelivery } from "./acks.js";
import type { NatsProviderConfig } from "./config.js";
import { NatsLink } from "./connection.js";
import { DeduplicationIds } from "./deduplication-ids.js";
import { DelayMover } from "./delay-mover.js";
import { DeliveryMarks } from "./delivery-marks.js";
import { outgoingMeta, readMeta } from "./message-mapping.js";
import { checkedPrefix } from "./names.js";
import { NatsAdmin } from "./nats-admin.js";
import { publish } from "./outbox.js";
import { Pulls, parseAckSubject } from "./pulls.js";
import { QueueCatalog } from "./queue-catalog.js";
import { redriveByReceiving } from "./redrive.js";
import { SessionLocks } from "./session-locks.js";
import {
  type ForeignSettle,
  parseSessionToken,
  sessionsWithMessages,
  settleForeign,
} from "./session-messages.js";
import { NatsSession, type SessionDeps } from "./sessions.js";
import { storedMessage } from "./stored-message.js";
import { Wakeup } from "./wakeups.js";
import { LOOK_AGAIN_MS, StaleRecord, WORK_RECEIPT, WorkQueues } from "./work-queue.js";

/** Headroom under the server's `max_payload` for the headers a message carries (its meta, its id). */
const HEADER_ROOM_BYTES = 64 * 1_024;

/** The capabilities of the NATS provider with messages up to `maxMessageBytes`. */
export function natsCapabilities(maxMessageBytes: number): Capabilities {
  return Object.freeze({
    // Sessions are locked on the broker (a KV record per session, revision-checked), across processes.
    ...fullCapabilities(maxMessageBytes, 100),
    // JetStream has no dead-letter queue: the provider publishes dead letters itself.
    deadLetter: "emulated",
    // JetStream counts a locked message, one whose lock ended and one abandoned with a delay alike as pending.
    lockedCount: false,
  });
}

/** Options of the NATS provider beyond its config. */
export interface NatsProviderOptions {
  readonly createQueues: boolean;
}

/** Connects to NATS and builds the provider; a server that refuses is `ConnectionFailed` naming it. */
export async function createNatsProvider(
  config: ProviderConfig,
  options: NatsProviderOptions,
): Promise<NatsProvider> {
  const natsConfig = config as NatsProviderConfig;
  const prefix = checkedPrefix(natsConfig.streamPrefix);
  const defaults = resolveQueueDefaults(natsConfig);
  const wanted = maxMessageBytesOf(natsConfig);
  const link = await NatsLink.open(natsConfig, DEFAULT_OPERATION_TIMEOUT_MS);
  const serverMax = (link.nc.info?.max_payload ?? 1_048_576) - HEADER_ROOM_BYTES;
  if (natsConfig.maxMessageBytes !== undefined && wanted > serverMax) {
    await link.close();
    throw new QueueError(
      "Configuration",
      `maxMessageBytes is ${wanted}, but NATS at ${link.servers} carries at most ${serverMax} bytes of body and attributes (its max_payload less room for headers)`,
    );
  }
  return new NatsProvider(
    link,
    prefix,
    defaults.sessionLockDurationMs,
    Math.min(wanted, serverMax),
    natsConfig.clock ?? systemClock,
    {
      defaults,
      createQueues: options.createQueues,
    },
  );
}

/**
 * The {@link QueueProvider} for NATS JetStream: a work-queue stream per queue, read through one
 * shared durable pull consumer whose ack wait is the lock; delays through a delay subject and its
 * consumer; sessions on per-session subjects with their locks and states in a KV bucket; the
 * queues themselves in a KV catalog, so every process sees the same.
 */
export class NatsProvider implements QueueProvider {
  readonly providerType = "nats";
  readonly capabilities: Capabilities;
  readonly telemetry: ProviderTelemetry;
  readonly admin: QueueAdmin;
  readonly #link: NatsLink;
  readonly #prefix: string;
  readonly #clock: Clock;
  readonly #createQueues: boolean;
  readonly #catalog: QueueCatalog;
  readonly #deduplication: DeduplicationIds;
  readonly #pulls: Pulls;
  readonly #delays: DelayMover;
  readonly #work: WorkQueues;
  readonly #sessionDeps: SessionDeps;
  /** Sessions held by this client, by owner token. */
  readonly #sessions = new Map<string, NatsSession>();
  readonly #closing = new AbortController();
  #closed = false;

  constructor(
    link: NatsLink,
    prefix: string,
    sessionLockMs: number,
    maxMessageBytes: number,
    clock: Clock,
    options: { defaults: ReturnType<typeof resolveQueueDefaults>; createQueues: boolean },
  ) {
    this.#link = link;
    const first = link.servers.split(",")[0]!.trim();
    this.telemetry = { system: "nats", ...serverOf(first.includes("://") ? first : `nats://${first}`) };
    this.#prefix = prefix;
    this.#clock = clock;
    this.#createQueues = options.createQueues;
    this.capabilities = natsCapabilities(maxMessageBytes);
    const marks = new DeliveryMarks(link, prefix);
    this.#deduplication = new DeduplicationIds(link, prefix);
    this.#catalog = new QueueCatalog(link, prefix, options.defaults, clock, async (queue) => {
      await Promise.all([marks.forget(queue), this.#deduplication.forget(queue)]);
    });
    this.#pulls = new Pulls(link, (message) => this.#giveBack(message));
    this.#delays = new DelayMover({ link, prefix, catalog: this.#catalog, pulls: this.#pulls, clock });
    this.#work = new WorkQueues({
      link,
      prefix,
      catalog: this.#catalog,
      pulls: this.#pulls,
      delays: this.#delays,
      marks,
      clock,
      providerType: this.providerType,
    });
    const locks = new SessionLocks(link, prefix);
    this.#sessionDeps = {
      link,
      prefix,
      catalog: this.#catalog,
      locks,
      delays: this.#delays,
      clock,
      providerType: this.providerType,
      sessionLockMs,
      ended: (session) => this.#sessions.delete(session.owner),
    };
    this.admin = new NatsAdmin({
      link,
      prefix,
      catalog: this.#catalog,
      locks,
      clock,
      redrive: (deadLetterQueue, target) =>
        redriveByReceiving(
          {
            link,
            prefix,
            catalog: this.#catalog,
            receive: (queue, max) =>
              this.receiveMessages(queue, max, 0, {
                signal: this.#closing.signal,
                timeoutMs: link.timeoutMs,
              }),
            complete: (receipt) => this.completeMessage(receipt),
            abandon: (receipt) => this.abandonMessage(receipt, 0),
          },
          deadLetterQueue,
          target,
        ),
    });
  }

  /** A message that arrived for a pull nobody waits for any more goes back at once (a delayed one until its delay ends). */
  #giveBack(message: Msg): void {
    const reply = message.reply;
    if (reply === undefined || this.#link.nc.isClosed()) return;
    const info = parseAckSubject(reply);
    const now = this.#clock.now();
    const left = info?.consumer === "delay" ? (readMeta(message.headers, "", now).visibleAt ?? 0) - now : 0;
    void signalDelivery(
      this.#link,
      reply,
      "nak",
      "giving back a message nobody waits for",
      Math.max(0, left),
    ).catch(() => undefined);
  }

  async sendMessages(
    queue: string,
    messages: readonly OutgoingMessage[],
    _context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    const generation = this.#catalog.generation;
    const record = await this.#forSend(queue, true);
    let sent = await Promise.all(messages.map((message) => this.#sendOne(record, message, true)));
    // The catalog changed while the record was used (any queue's record, by any process).
    if (generation !== this.#catalog.generation) sent = await this.#sendAgainIfStale(record, messages, sent);
    const results = sent.map((one) => one.result);
    // Nothing sent for a reason of the connection (not of the messages): the call failed as a whole.
    const first = results[0];
    if (
      first !== undefined &&
      !first.ok &&
      results.every((result) => !result.ok && !refusedMessage(result.error))
    )
      throw first.error;
    return results;
  }

  /**
   * Sends `message` to `record`'s stream, its deduplication id on the stream only when
   * `deduplicateOnStream` (else only remembered, see {@link sendAgainIfStale}).
   */
  async #sendOne(record: QueueRecord, message: OutgoingMessage, deduplicateOnStream: boolean): Promise<Sent> {
    const queue = record.name;
    const id = message.messageId ?? newMessageId();
    try {
      const now = this.#clock.now();
      const meta = outgoingMeta(
        message,
        id,
        now,
        message.timeToLiveMs ?? record.defaultTimeToLiveMs,
        message.delayMs ?? record.defaultDelayMs,
      );
      const deduplicationId = record.deduplicationWindowMs > 0 ? message.deduplicationId : undefined;
      const stored = await publish(
        this.#link,
        this.#prefix,
        record,
        meta,
        message.body,
        `sending to ${queue}`,
        deduplicateOnStream ? deduplicationId : undefined,
      );
      const fresh = { result: { ok: true, messageId: id }, sequence: stored.sequence } as const;
      if (deduplicationId === undefined) return fresh;
      if (!stored.duplicate) {
        await this.#deduplication.remember(queue, deduplicationId, id);
        return fresh;
      }
      const original =
        (await this.#deduplication.original(queue, deduplicationId)) ??
        (await this.#originalId(record, stored.sequence, id));
      return { result: { ok: true, messageId: original } };
    } catch (error) {
      return { result: { ok: false, error: this.#link.error(error, `sending to ${queue}`) } };
    }
  }

  /**
   * Sends `messages` again when the queue was deleted or made again (by another process) while
   * `used` was its record: each one the stale record stored is erased, unless taken already, and
   * sent by the queue's record now, with its id (and its deduplication id only remembered: the
   * stream would find it a repeat of the one erased); each one that failed is sent again.
   */
  async #sendAgainIfStale(
    used: QueueRecord,
    messages: readonly OutgoingMessage[],
    sent: Sent[],
  ): Promise<Sent[]> {
    const queue = used.name;
    const now = await this.#catalog.find(queue);
    if (now !== undefined && JSON.stringify(now) === JSON.stringify(used)) return sent;
    const record = await this.#forSend(queue, false);
    const stream = this.#catalog.names(queue).stream;
    return Promise.all(
      sent.map(async (one, index): Promise<Sent> => {
        const message = messages[index]!;
        if (!one.result.ok) return this.#sendOne(record, message, true);
        if (one.sequence === undefined) return one;
        if (!(await eraseStored(this.#link, stream, one.sequence, `sending to ${queue}`))) return one;
        return this.#sendOne(record, { ...message, messageId: one.result.messageId }, false);
      }),
    );
  }

  /** The id of the message a duplicate repeats (JetStream tells its sequence), or `fallback` once it is gone. */
  async #originalId(record: QueueRecord, sequence: number, fallback: string): Promise<string> {
    const stream = this.#catalog.names(record.name).stream;
    const stored = await storedMessage(this.#link.jsm, stream, sequence).catch(() => null);
    return stored === null || stored.seq !== sequence ? fallback : readMeta(stored.header, fallback, 0).id;
  }

  async receiveMessages(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    const signal = AbortSignal.any([context.signal, this.#closing.signal]);
    for (;;) {
      const generation = this.#catalog.generation;
      // One that does not wait pulls while the queue's record is read (see WorkQueues.pullAhead).
      let ahead = waitMs === 0 ? this.#work.pullAhead(queue, maxMessages) : undefined;
      try {
        const known = await this.#forRead(queue, waitMs, signal, true);
        if (known === undefined) return [];
        // Sessions take their own round trips: a FIFO queue's record is read afresh.
        const record = known.fifo ? await this.#catalog.require(queue) : known;
        if (record.fifo) return await this.#borrow(record, maxMessages, waitMs, signal);
        const taken = ahead;
        ahead = undefined;
        return await this.#work.receive(record, maxMessages, waitMs, signal, { ahead: taken, generation });
      } catch (error) {
        // The queue was deleted or made again while its record was used: what came went back.
        if (error instanceof StaleRecord) continue;
        // A receive the client's close cut short resolves empty, as a wait that ended does.
        if (this.#closed) return [];
        throw error;
      } finally {
        if (ahead !== undefined) this.#work.giveBack(ahead);
      }
    }
  }

  /** A plain receive of a FIFO queue: the messages of the next free session, held until each is settled. */
  async #borrow(
    record: QueueRecord,
    max: number,
    waitMs: number,
    signal: AbortSignal,
  ): Promise<ReceivedMessage[]> {
    let session: NatsSession;
    try {
      session = await this.#acceptNext(record, waitMs, signal);
    } catch (error) {
      if (QueueError.is(error, "NoSessionAvailable")) return [];
      throw error;
    }
    const context = { signal, timeoutMs: this.#link.timeoutMs };
    try {
      const messages = await session.receiveMessages(max, 0, context);
      session.whenIdle(() => void session.closeSession().catch(() => undefined));
      return messages;
    } catch (error) {
      await session.closeSession().catch(() => undefined);
      throw error;
    }
  }

  completeMessage(receipt: ReceiptHandle): Promise<void> {
    return this.#settle(
      receipt,
      (session) => session.completeMessage(receipt),
      { kind: "complete" },
      (subject) => this.#work.complete(receipt, subject),
    );
  }

  abandonMessage(receipt: ReceiptHandle, delayMs: number): Promise<void> {
    return this.#settle(
      receipt,
      (session) => session.abandonMessage(receipt),
      { kind: "abandon" },
      (subject) => this.#work.abandon(receipt, subject, delayMs),
    );
  }

  deadLetterMessage(receipt: ReceiptHandle, reason: string, description: string | undefined): Promise<void> {
    return this.#settle(
      receipt,
      (session) => session.deadLetterMessage(receipt, reason, description),
      { kind: "deadLetter", reason, description },
      (subject) => this.#work.deadLetter(receipt, subject, reason, description),
    );
  }

  async renewMessageLock(receipt: ReceiptHandle): Promise<Date> {
    if (receipt.token.startsWith(WORK_RECEIPT))
      return this.#work.renew(receipt, receipt.token.slice(WORK_RECEIPT.length));
    // A receipt that holds no lock says so first, as any settle of it would.
    await this.#settle(
      receipt,
      (session) => session.checkHeld(receipt),
      { kind: "check" },
      async () => undefined,
    );
    throw new QueueError(
      "Unsupported",
      "messages of a session are locked by the session: renew the session's lock",
    );
  }

  /**
   * Settles a receipt of a plain queue through its ack subject, or of a session message through
   * its session when this client holds it, else through the session's record.
   */
  async #settle(
    receipt: ReceiptHandle,
    inSession: (session: NatsSession) => Promise<void>,
    foreign: ForeignSettle,
    plain: (ackSubject: string) => Promise<void>,
  ): Promise<void> {
    const token = receipt.token;
    if (token.startsWith(WORK_RECEIPT)) return plain(token.slice(WORK_RECEIPT.length));
    const owner = parseSessionToken(token)?.owner;
    if (owner === undefined)
      throw new QueueError("InvalidReceipt", "this is not a receipt this provider issued");
    const session = this.#sessions.get(owner);
    if (session === undefined) return settleForeign(this.#sessionDeps, receipt, foreign);
    try {
      await inSession(session);
    } catch (error) {
      if (QueueError.is(error, "SessionLockLost"))
        throw new QueueError("InvalidReceipt", `the lock on this message of ${receipt.queue} has ended`, {
          cause: error,
        });
      throw error;
    }
  }

  async acceptSession(
    queue: string,
    sessionId: string | undefined,
    waitMs: number,
    context: OperationContext,
  ): Promise<SessionProvider> {
    const signal = AbortSignal.any([context.signal, this.#closing.signal]);
    const record = await this.#forRead(queue, sessionId === undefined ? waitMs : 0, signal, false);
    if (record === undefined) throw noQueueToAcceptFrom(queue, sessionId);
    if (!record.fifo)
      throw new QueueError(
        "Unsupported",
        `queue ${queue} has no sessions: create it with { requiresSession: true }`,
      );
    if (sessionId === undefined) return this.#acceptNext(record, waitMs, signal);
    const session = new NatsSession(record, sessionId, this.#sessionDeps);
    await session.lock();
    this.#sessions.set(session.owner, session);
    return session;
  }

  /**
   * Locks the free session with the oldest message, waiting up to `waitMs` for one: woken by a
   * publish to any session subject, and looking again now and then as other holders' locks end.
   */
  async #acceptNext(record: QueueRecord, waitMs: number, signal: AbortSignal): Promise<NatsSession> {
    const names = this.#catalog.names(record.name);
    const deadline = this.#clock.now() + waitMs;
    const wakeup = new Wakeup(this.#link, names.sessions);
    try {
      for (;;) {
        await this.#delays.moveDue(record);
        for (const id of await sessionsWithMessages(this.#sessionDeps, record)) {
          const session = new NatsSession(record, id, this.#sessionDeps);
          try {
            await session.lock();
          } catch (error) {
            if (QueueError.is(error, "SessionLocked")) continue;
            throw error;
          }
          this.#sessions.set(session.owner, session);
          if (await session.hasMessages()) return session;
          await session.closeSession();
        }
        const left = deadline - this.#clock.now();
        if (left <= 0 || signal.aborted) throw noSessionFree(record.name);
        await wakeup.wait(Math.min(left, LOOK_AGAIN_MS), signal);
        // Ended (the client closing): no look more, whose requests the closing connection may never answer.
        if (signal.aborted) throw noSessionFree(record.name);
      }
    } finally {
      wakeup.close();
    }
  }

  /** The record of a queue to send to (as last read, when `known` will do): with `createQueues`, made on first use. */
  async #forSend(queue: string, known: boolean): Promise<QueueRecord> {
    const found = known ? await this.#catalog.known(queue) : await this.#catalog.find(queue);
    if (found !== undefined) return found;
    if (!this.#createQueues) throw new QueueError("QueueNotFound", `queue ${queue} does not exist`);
    try {
      return await this.#catalog.create(queue, {});
    } catch (error) {
      if (!QueueError.is(error, "QueueAlreadyExists")) throw error;
      return this.#catalog.require(queue);
    }
  }

  /**
   * The record of a queue to read (as last read, when `known` will do); reads never create
   * queues: with `createQueues` one that does not exist yet is waited for (up to `waitMs`), else
   * it is `QueueNotFound`.
   */
  async #forRead(
    queue: string,
    waitMs: number,
    signal: AbortSignal,
    known: boolean,
  ): Promise<QueueRecord | undefined> {
    const read = (name: string) => (known ? this.#catalog.known(name) : this.#catalog.find(name));
    if (!this.#createQueues) {
      const record = await read(queue);
      if (record === undefined) throw new QueueError("QueueNotFound", `queue ${queue} does not exist`);
      return record;
    }
    let record: QueueRecord | undefined;
    const exists = async () => {
      record = await read(queue);
      return record !== undefined;
    };
    await awaitQueue(exists, this.#clock, this.#clock.now() + waitMs, signal);
    return record;
  }

  /** Ends waits at once (they resolve empty), lets held sessions go and closes the connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    await Promise.allSettled([...this.#sessions.values()].map((session) => session.closeSession()));
    this.#pulls.close();
    this.#work.clear();
    await this.#link.close();
  }
}

/** The error of an accept of any session that found none free in its time. */
function noSessionFree(queue: string): QueueError {
  return new QueueError("NoSessionAvailable", `no session of ${queue} was free in the time given`);
}

/** What one message's send came to, and where it was stored when it was stored now (not a repeat). */
interface Sent {
  readonly result: BatchEntryResult;
  readonly sequence?: number;
}

/** Whether a send failed for a reason of the message itself, which its batch entry tells. */
function refusedMessage(error: QueueError): boolean {
  return error.code === "Validation" || error.code === "MessageTooLarge";
}

import pg from "pg";
import { noQueueToAcceptFrom } from "../../core/await-queue.js";
import type { Capabilities } from "../../core/capabilities.js";
import type { Clock } from "../../core/clock.js";
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
import { serverOf } from "../../core/telemetry/server-address.js";
import { validateDuration } from "../../core/validation.js";
import type { PgPool } from "../../postgres/pg-pool.js";
import { fullCapabilitiesWithTopics } from "../../rules/full-capabilities.js";
import { maxMessageBytesOf } from "../../rules/limits.js";
import { type QueueDefaults, resolveQueueDefaults } from "../../rules/queue-defaults.js";
import type { PostgresProviderConfig } from "./config.js";
import { DatabaseClock } from "./database-clock.js";
import { PostgresMessages } from "./postgres-messages.js";
import { type PostgresQueue, PostgresQueues } from "./postgres-queues.js";
import { channelOf, checkSchemaName, migrate } from "./postgres-schema.js";
import { acceptPostgresSession, type SessionContext } from "./postgres-sessions.js";
import { PostgresTopics } from "./postgres-topics.js";
import { listenForQueues, onQueueSignal, signalKey, signalQueue } from "./queue-signals.js";
import { TableVacuum } from "./table-vacuum.js";
import { TopicPublisher } from "./topic-publisher.js";
import { Wakeups } from "./wakeups.js";

/** The schema the tables live in unless the config names another. */
export const DEFAULT_SCHEMA = "queue_runtime";
/** The most messages one statement sends or receives. */
const MAX_BATCH_SIZE = 100;
/**
 * How long a waiting receive sleeps at most when nothing wakes it: sends notify it, and it
 * wakes itself when the next delay or lock ends, so this only covers a lost LISTEN connection.
 */
const FALLBACK_POLL_MS = 1_000;
/** How often the tables are checked for dead rows to vacuum, unless the config says otherwise. */
const DEFAULT_VACUUM_INTERVAL_MS = 10_000;
/** The longest vacuum interval a config may ask for: a day. */
const MAX_VACUUM_INTERVAL_MS = 86_400_000;

/** Options of the PostgreSQL provider beyond its config. */
export interface PostgresProviderOptions {
  readonly createQueues: boolean;
}

/** Builds the PostgreSQL provider: the pool made (or the application's taken), nothing sent yet. */
export async function createPostgresProvider(
  config: ProviderConfig,
  options: PostgresProviderOptions,
): Promise<PostgresProvider> {
  return new PostgresProvider(config as PostgresProviderConfig, options);
}

/**
 * The {@link QueueProvider} on PostgreSQL: the engine's semantics as set-based statements
 * (`FOR UPDATE SKIP LOCKED`), so any number of processes on any number of machines share the
 * queues of one database. Each operation is one round trip.
 */
export class PostgresProvider implements QueueProvider {
  readonly providerType = "postgres";
  readonly capabilities: Capabilities;
  readonly telemetry: ProviderTelemetry;
  readonly admin: PostgresQueues;
  readonly topics: PostgresTopics;
  /** Every statement ends on its own: node-postgres queries are bounded by the pool's timeouts and the server's. */
  readonly enforcesTimeouts = false;
  readonly #pool: PgPool;
  readonly #ownsPool: boolean;
  readonly #clock: Clock;
  /** The database's clock, unless a clock was given. */
  readonly #databaseClock: DatabaseClock | undefined;
  readonly #createQueues: boolean;
  readonly #messages: PostgresMessages;
  readonly #schema: string;
  readonly #wakeups: Wakeups;
  readonly #signalKey: string;
  readonly #stopSignals: () => void;
  readonly #sessions: SessionContext;
  readonly #vacuum: TableVacuum;
  /** Gives back this client's share of the LISTEN connection; set once a receive first waits. */
  #stopListening: (() => void) | undefined;
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(config: PostgresProviderConfig, options: PostgresProviderOptions) {
    if ((config.connectionString === undefined) === (config.pool === undefined))
      throw new QueueError(
        "Configuration",
        "the postgres provider needs one of connectionString (postgres://user@host:5432/db) or pool (a pg.Pool)",
      );
    this.#schema = checkSchemaName(config.schema ?? DEFAULT_SCHEMA);
    this.#ownsPool = config.pool === undefined;
    // A pool of your own: pg.Pool keeps its host and port in `options`.
    const own = (config.pool as { options?: { host?: string; port?: number } } | undefined)?.options;
    this.telemetry = {
      system: "postgresql",
      ...serverOf(config.connectionString ?? `postgres://${own?.host ?? "localhost"}:${own?.port ?? 5432}`),
    };
    this.#pool = config.pool ?? new pg.Pool({ connectionString: config.connectionString, max: 10 });
    // A pool's idle connection that the server drops emits an error: the next query opens another.
    if (this.#ownsPool) (this.#pool as pg.Pool).on("error", () => undefined);
    if (config.clock === undefined) {
      const databaseClock = new DatabaseClock();
      this.#databaseClock = databaseClock;
      this.#clock = databaseClock;
    } else {
      this.#databaseClock = undefined;
      this.#clock = config.clock;
    }
    this.#createQueues = options.createQueues;
    // The engine's semantics, in SQL: what the engine-backed providers can do, this one can.
    this.capabilities = fullCapabilitiesWithTopics(maxMessageBytesOf(config), MAX_BATCH_SIZE);
    const defaults = resolveQueueDefaults(config);
    const queues = new PostgresQueues(this.#pool, this.#schema, this.#clock, defaults, () => this.#open());
    this.admin = queues;
    this.#messages = new PostgresMessages(this.#pool, this.#schema, this.providerType);
    this.#signalKey = signalKey(config.connectionString ?? this.#pool, this.#schema);
    this.topics = this.#topics(defaults);
    this.#wakeups = new Wakeups(this.#clock);
    this.#vacuum = new TableVacuum(
      this.#pool,
      this.#schema,
      this.#clock,
      validateDuration(
        "vacuumIntervalMs",
        config.vacuumIntervalMs ?? DEFAULT_VACUUM_INTERVAL_MS,
        0,
        MAX_VACUUM_INTERVAL_MS,
      ),
    );
    this.#stopSignals = onQueueSignal(this.#signalKey, (queue) => this.#wakeups.signal(queue));
    this.#sessions = {
      pool: this.#pool,
      schema: `"${this.#schema}"`,
      schemaName: this.#schema,
      clock: this.#clock,
      messages: this.#messages,
      sessionLockDurationMs: defaults.sessionLockDurationMs,
      wait: (queue, mark, deadline, signal) => this.#wait(queue, mark, deadline, signal),
      mark: (queue) => this.#wakeups.mark(queue),
      signal: (queue) => signalQueue(this.#signalKey, queue),
    };
  }

  async sendMessages(
    queue: string,
    messages: readonly OutgoingMessage[],
    _context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    const target = await this.#queue(queue);
    const sent = await this.#messages.send(target, messages, this.#clock.now());
    signalQueue(this.#signalKey, queue);
    return sent;
  }

  async receiveMessages(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    try {
      return await this.#receive(queue, maxMessages, waitMs, context);
    } catch (error) {
      // Ended early (the client is closing, its pool with it): resolves empty, as a wait's end does.
      if (context.signal.aborted) return [];
      throw error;
    }
  }

  async #receive(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    // The clock is the database's once open; a wait counts from the call (time may be virtual).
    await this.#open();
    const deadline = this.#clock.now() + waitMs;
    const source = await this.#queueToReceiveFrom(queue, deadline, context.signal);
    if (source === undefined) return [];
    for (;;) {
      const mark = this.#wakeups.mark(queue);
      const received = await this.#messages.receive(source, maxMessages, this.#clock.now());
      if (received.length > 0 || this.#clock.now() >= deadline || context.signal.aborted) return received;
      await this.#wait(source, mark, deadline, context.signal);
      if (context.signal.aborted) return [];
    }
  }

  async completeMessage(receipt: ReceiptHandle): Promise<void> {
    await this.#messages.complete(await this.#queueOf(receipt), receipt, this.#clock.now());
  }

  async abandonMessage(receipt: ReceiptHandle, delayMs: number): Promise<void> {
    await this.#messages.abandon(await this.#queueOf(receipt), receipt, delayMs, this.#clock.now());
    if (delayMs === 0) signalQueue(this.#signalKey, receipt.queue);
  }

  async deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
  ): Promise<void> {
    await this.#messages.deadLetter(
      await this.#queueOf(receipt),
      receipt,
      reason,
      description,
      this.#clock.now(),
    );
  }

  async renewMessageLock(receipt: ReceiptHandle): Promise<Date> {
    return new Date(await this.#messages.renew(await this.#queueOf(receipt), receipt, this.#clock.now()));
  }

  async acceptSession(
    queue: string,
    sessionId: string | undefined,
    waitMs: number,
    context: OperationContext,
  ): Promise<SessionProvider> {
    await this.#open();
    const deadline = this.#clock.now() + waitMs;
    // A named session is held whether or not it has messages, so its queue must exist; the next
    // free session may come with the send that makes the queue.
    const source =
      sessionId === undefined
        ? await this.#queueToReceiveFrom(queue, deadline, context.signal)
        : await this.admin.require(queue);
    if (source === undefined) throw noQueueToAcceptFrom(queue, sessionId);
    return acceptPostgresSession(this.#sessions, source, sessionId, deadline, context);
  }

  /** Topics on this provider's tables, publishing through a publisher of their own. */
  #topics(defaults: QueueDefaults): PostgresTopics {
    const schema = `"${this.#schema}"`;
    const publisher = new TopicPublisher({
      pool: this.#pool,
      schema,
      channel: channelOf(this.#schema),
      messages: this.#messages,
      createQueues: this.#createQueues,
      createTopic: (name) => topics.createDefaultTopic(name),
      createQueue: async (name) => {
        await this.admin.createQueue(name).catch((error: unknown) => {
          if (!QueueError.is(error, "QueueAlreadyExists")) throw error;
        });
      },
      signal: (queue) => signalQueue(this.#signalKey, queue),
    });
    const topics: PostgresTopics = new PostgresTopics({
      pool: this.#pool,
      schema,
      clock: this.#clock,
      defaults,
      maxMessageBytes: this.capabilities.maxMessageBytes,
      queues: this.admin,
      publisher,
      open: () => this.#open(),
    });
    return topics;
  }

  /** Ends the pool it made (an application's pool stays open). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopSignals();
    this.#stopListening?.();
    this.#wakeups.wakeAll();
    await this.#vacuum.stop();
    if (this.#ownsPool) await this.#pool.end();
  }

  /**
   * Waits for `queue` to be signalled after `mark`, or for its next delay or lock to end, or for
   * `deadline`; the first wait of this client starts listening for other processes' sends.
   */
  async #wait(queue: PostgresQueue, mark: number, deadline: number, signal: AbortSignal): Promise<void> {
    this.#listen();
    const due = await this.#messages.nextDue(queue);
    const until = Math.min(deadline, this.#clock.now() + FALLBACK_POLL_MS, due ?? Number.POSITIVE_INFINITY);
    await this.#wakeups.wait(queue.record.name, mark, until, signal);
  }

  /** Starts listening for other processes' sends, once: the first time a receive of this client waits. */
  #listen(): void {
    this.#stopListening ??= listenForQueues(this.#signalKey, this.#pool, channelOf(this.#schema));
  }

  /** The tables, made or migrated on first use; a failed attempt is tried again by the next call. */
  #open(): Promise<void> {
    this.#ready ??= (async () => {
      await migrate(this.#pool, this.#schema);
      await this.#databaseClock?.synchronize(this.#pool);
      this.#vacuum.start();
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /**
   * The queue a receive reads. Reads never create queues: one that does not exist yet is waited
   * for until `deadline` (a send may make it; `undefined` if none did) when the provider creates
   * queues, and is `QueueNotFound` when it does not.
   */
  async #queueToReceiveFrom(
    name: string,
    deadline: number,
    signal: AbortSignal,
  ): Promise<PostgresQueue | undefined> {
    for (;;) {
      const mark = this.#wakeups.mark(name);
      const found = await this.admin.find(name);
      if (found !== undefined) return found;
      if (!this.#createQueues) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
      if (this.#clock.now() >= deadline || signal.aborted) return undefined;
      this.#listen();
      await this.#wakeups.wait(name, mark, Math.min(deadline, this.#clock.now() + FALLBACK_POLL_MS), signal);
    }
  }

  /** The queue a send goes to, made first when the provider creates queues on first use. */
  async #queue(name: string): Promise<PostgresQueue> {
    const found = await this.admin.find(name);
    if (found !== undefined) return found;
    if (!this.#createQueues) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    await this.admin.createQueue(name).catch((error: unknown) => {
      if (!QueueError.is(error, "QueueAlreadyExists")) throw error;
    });
    return this.admin.require(name);
  }

  /** The queue of a receipt: a receipt of a queue that is gone holds no lock. */
  async #queueOf(receipt: ReceiptHandle): Promise<PostgresQueue> {
    const queue = await this.admin.find(receipt.queue);
    if (queue === undefined)
      throw new QueueError("InvalidReceipt", `queue ${receipt.queue} of this receipt does not exist`);
    return queue;
  }
}

import type { QueueStats } from "../../core/admin.js";
import { QueueError } from "../../core/errors.js";
import { belongsToTopic, subscriptionDeadLetterQueue } from "../../rules/topic-records.js";

/**
 * A reference model of the shared semantics (docs: shared/spec/semantics.md), standard and FIFO
 * queues with sessions, written to be read, not to be fast: every message is an object in an
 * array in arrival order, and time is a number of ms that only `advance` moves. Everything time
 * does (delays ending, locks ending, time to live ending) is applied eagerly, so the model's state
 * at any instant follows from the semantics alone, not from when a provider happens to look.
 *
 * FIFO queues: every message names a session (message group). A group is locked while a session
 * accepted on it holds it, or while a plain receive's messages of it are locked; a receive takes
 * the free groups whole, in the order of their oldest ready message.
 */

/** The options of a queue the model knows. */
export interface ModelQueueOptions {
  /** Messages carry a session id and are delivered in order per session. */
  fifo?: boolean;
  lockDurationMs?: number;
  /** `null`: never dead-letter for deliveries. */
  maxDeliveryCount?: number | null;
  /** `undefined`: `<name>-dlq`; `null`: no dead-letter queue. */
  deadLetterQueue?: string | null;
  defaultDelayMs?: number;
  /** `null`: messages live forever. */
  defaultTimeToLiveMs?: number | null;
  /** 0 turns deduplication off. */
  deduplicationWindowMs?: number;
}

/** A message as the model sends it. */
export interface ModelSend {
  /** The body; the model's identity of a message, so unique per send. */
  body: string;
  delayMs?: number;
  timeToLiveMs?: number;
  deduplicationId?: string;
  sessionId?: string;
}

/** A delivery as the model hands it out. */
export interface ModelDelivery {
  /** The model's opaque receipt token. */
  readonly receipt: string;
  readonly body: string;
  readonly sessionId: string | undefined;
  readonly deliveryCount: number;
  readonly lockedUntil: number;
  /** The dead-letter attributes, for messages in a dead-letter queue. */
  readonly deadLetter: DeadLetterMark | undefined;
}

/** Why and from where a message was dead-lettered. */
export interface DeadLetterMark {
  readonly reason: string;
  readonly description: string | undefined;
  readonly sourceQueue: string;
}

/** Who settles a receipt: the client that received the message, or another one given the receipt's text. */
export type Settler = "receiver" | "other";

/** A session the model let a receiver accept. */
export interface ModelSession {
  /** The model's opaque handle of this acceptance. */
  readonly token: string;
  readonly sessionId: string;
  readonly lockedUntil: number;
}

/** The defaults of the engine providers (memory, sqlite), which the model follows. */
export const MODEL_DEFAULTS = {
  lockDurationMs: 30_000,
  maxDeliveryCount: 10,
  deduplicationWindowMs: 300_000,
  sessionLockDurationMs: 60_000,
} as const;

/** How a provider's semantics depart from the defaults, where the semantics leave room. */
export interface ModelOptions {
  /** How long an accepted session stays held without renewal (`"queue"`: its queue's lock duration, as on Service Bus). */
  sessionLockDurationMs?: number | "queue";
  /** The settings a queue made without them gets, where they differ from {@link MODEL_DEFAULTS}. */
  queueDefaults?: ModelQueueDefaults;
  /**
   * Where a queue's dead letters go: a queue of their own that it names (`"named"`, the default:
   * `<name>-dlq`), or its own sub-queue `<name>/$deadletterqueue`, made, listed and deleted with it
   * (`"subqueue"`: Service Bus, where a redrive takes only a sub-queue and `deadLetterQueue` is
   * `Unsupported`).
   */
  deadLetterQueues?: "named" | "subqueue";
  /** Whether a queue may have a default delay (Service Bus: `Unsupported`, each message has its own). */
  defaultDelays?: boolean;
  /**
   * How an abandon with a delay waits: as a delayed message (`"delayed"`, the default), or still
   * locked by its receipt until the delay ends and then released as an abandon releases it
   * (`"held"`: the Service Bus provider keeps the lock, having no delayed abandon to ask for; a
   * message locked by its session can be kept only by the client holding the session).
   */
  delayedAbandons?: "delayed" | "held";
  /**
   * What a plain receive of a FIFO queue takes: the free groups whole (`"groups"`, the default), or
   * the messages of the first free session, held as a session until each is settled (`"session"`:
   * Service Bus, whose plain receive of a session queue borrows one session).
   */
  fifoReceive?: "groups" | "session";
  /**
   * Whether a peek shows a held message whose time to live has ended (default true; Service Bus's
   * peek cannot tell it from one the service has yet to remove, so the provider leaves both out).
   */
  peekHeldExpired?: boolean;
  /**
   * What a purge removes: every message (`"all"`, the default), or what a receive could take
   * (`"ready"`: Service Bus receives them, on a FIFO queue a free session at a time).
   */
  purge?: "all" | "ready";
  /** A deduplication window every queue has whatever it was created with (SQS: 5 minutes on FIFO queues). */
  deduplicationWindowMs?: number;
  /** Whether standard queues deduplicate too (SQS: FIFO queues only). */
  deduplicateStandardQueues?: boolean;
  /**
   * Whether one message of a FIFO queue may have a delay of its own (SQS: a delay over 0 is
   * `Unsupported`, and every message waits the queue's delay).
   */
  fifoMessageDelays?: boolean;
  /**
   * How a redrive finds what to move: by receiving (SQS: each message it cannot move counts one
   * delivery more), and whether a message with no source queue goes to the one queue that
   * dead-letters into the dead-letter queue, when there is exactly one.
   */
  redrive?: { readonly receives: boolean; readonly toSoleSource: boolean };
  /**
   * How a receipt is judged: by whether its lock still holds (`"lock"`, the default), or as SQS
   * judges it through a client that remembers what it settled itself (`"sqs"`: see `#sqsSettle`).
   */
  receipts?: "lock" | "sqs";
  /**
   * Whether a session's later messages may pass one that is still delayed (`"ready-first"`, the
   * default: a delayed message joins its session when its delay ends), or wait for it
   * (`"strict"`: the postgres provider).
   */
  sessionOrder?: "ready-first" | "strict";
  /**
   * Whether a queue that another names as its dead-letter queue can be deleted (`"allowed"`, the
   * default: it is made again when a message needs it) or is refused with `Validation` (the
   * postgres provider).
   */
  deadLetterQueueDeletion?: "allowed" | "refused";
  /**
   * From when a delayed message's time to live runs: its send (`"send"`, the default), or the end
   * of its delay (`"visible"`: Service Bus enqueues a scheduled message at its scheduled time).
   */
  timeToLiveFrom?: "send" | "visible";
  /** Delays (of a send or an abandon) count in whole units of this many ms, a part rounded up (SQS: 1 000). */
  delayUnitMs?: number;
  /**
   * Whose clock the queues keep: the run's virtual clock (`"virtual"`, the default), or the broker's
   * own (`"broker"`: RabbitMQ, NATS), which no run can move. The runs then never advance time, every
   * lock and deduplication window outlasts a run, and delays and time to live are left to the
   * contract suite, which times them for real.
   */
  time?: "virtual" | "broker";
  /**
   * In what order a standard queue hands out its messages: as they arrived (`"arrival"`, the
   * default), or in an order that is not the semantics' business (`"unspecified"`: RabbitMQ's quorum
   * queues hand returned messages out first, in the order they came back), so receives from a
   * standard queue take it whole and are compared as sets.
   */
  standardOrder?: "arrival" | "unspecified";
  /**
   * Which free session of a FIFO queue an accept of any session (or a plain receive that borrows
   * one) takes: the one whose oldest ready message is oldest (`"oldest-message"`, the default), or
   * one the semantics do not name (`"unspecified"`: the rabbitmq provider offers sessions in the
   * order their first messages came, as AMQP cannot look at a session's next message without taking
   * it). Such a step is then made only while at most one session is free with messages ready.
   */
  nextSession?: "oldest-message" | "unspecified";
  /**
   * Whether a subscription may deduplicate (a `deduplicationWindowMs` over 0; default true), or
   * is `Unsupported` (Service Bus detects duplicates on a topic, not on its subscriptions).
   */
  subscriptionDeduplication?: boolean;
  /**
   * Whether a redrive may move dead letters into a subscription's queue (default true), or is
   * `Unsupported` (Service Bus sends only to a topic: `capabilities.subscriptionRedrive` false).
   */
  subscriptionRedrive?: boolean;
}

/** Queue settings whose defaults a provider may choose otherwise. */
export interface ModelQueueDefaults {
  readonly lockDurationMs?: number;
  /** 0: no deduplication unless asked for (Service Bus). */
  readonly deduplicationWindowMs?: number;
  /** Whether a message whose time to live ends is dead-lettered (default) or dropped (Service Bus). */
  readonly deadLetterOnExpiration?: boolean;
}

/** The suffix of a Service Bus queue's dead-letter sub-queue, as queue-runtime names it. */
export const DEAD_LETTER_SUBQUEUE = "/$deadletterqueue";

/** The reasons the queue itself dead-letters with (named as in the engine). */
export const MODEL_REASONS = { maxDeliveryCount: "MaxDeliveryCountExceeded", expired: "TTLExpired" } as const;

interface QueueSettings {
  readonly fifo: boolean;
  readonly lockDurationMs: number;
  readonly maxDeliveryCount: number | null;
  readonly deadLetterQueue: string | null;
  readonly defaultDelayMs: number;
  readonly defaultTimeToLiveMs: number | null;
  readonly deduplicationWindowMs: number;
  readonly deadLetterOnExpiration: boolean;
}

type MessageState = "ready" | "delayed" | "locked";

/** What a peek calls each state. */
const PEEKED_STATE = { ready: "active", delayed: "delayed", locked: "inFlight" } as const;

interface ModelMessage {
  readonly body: string;
  readonly sessionId: string | undefined;
  state: MessageState;
  /** For `delayed`: when it becomes ready. */
  visibleAt: number;
  /** For `locked`: when the lock ends. */
  lockedUntil: number;
  /** The receipt of the latest lock, kept after it ends (it holds while the message is locked; SQS judges receipts by it). */
  latest: string | null;
  /** With held delayed abandons: when the abandon of a message still locked takes effect. */
  abandonAt: number | null;
  deliveryCount: number;
  readonly expiresAt: number | null;
  deadLetter: DeadLetterMark | undefined;
}

interface ModelQueue {
  readonly name: string;
  readonly settings: QueueSettings;
  /** In send (arrival) order: the order receives take them. */
  messages: ModelMessage[];
  /** Deduplication id → the body of the message first sent with it, and when that memory ends. */
  readonly duplicates: Map<string, { body: string; until: number }>;
  /**
   * The latest session accepted on each group (it holds the group until `lockedUntil`); a session
   * a plain receive borrowed keeps the receipts it gave out that its receiver has not settled yet.
   */
  readonly holds: Map<string, { token: string; lockedUntil: number; borrowed?: Set<string> }>;
  /** Session state, kept across holders. */
  readonly states: Map<string, string>;
}

/** A queue with nothing in it. */
function emptyQueue(name: string, settings: QueueSettings): ModelQueue {
  return { name, settings, messages: [], duplicates: new Map(), holds: new Map(), states: new Map() };
}

/** The reference model: queues, messages, locks, sessions and a virtual clock. */
export class QueueModel {
  #now: number;
  #tokens = 0;
  readonly #queues = new Map<string, ModelQueue>();
  /** Every session handle given out: where it points, and whether its client closed it. */
  readonly #sessions = new Map<string, { queue: string; sessionId: string; closed: boolean }>();
  readonly #options: ModelOptions;
  /** Every receipt handed out: the message it locked and what the receiving client remembers of it. */
  readonly #issued = new Map<string, IssuedReceipt>();
  /** Queues that took dead letters or redriven messages (see {@link orderUnspecified}). */
  readonly #unordered = new Set<string>();

  /** Starts the model's clock at `startMs` (give it the provider's virtual clock's start). */
  constructor(startMs: number, options: ModelOptions = {}) {
    this.#now = startMs;
    this.#options = options;
  }

  /** The model's current time in ms. */
  get now(): number {
    return this.#now;
  }

  /** Lets `ms` pass; everything due by then happens. */
  advance(ms: number): void {
    this.#now += ms;
    this.#applyTime();
  }

  /** The names of every queue, dead-letter queues included, sorted. */
  queueNames(): string[] {
    return [...this.#queues.keys()].sort();
  }

  /** Whether `name` is a FIFO queue (false when it does not exist). */
  isFifo(name: string): boolean {
    return this.#queues.get(name)?.settings.fifo ?? false;
  }

  /**
   * True when the order of `name`'s messages is not the semantics' business: a queue that takes
   * or took dead letters (they arrive as time moves them, in no specified order), that a redrive
   * filled from one, or a standard queue where `standardOrder` is `"unspecified"`.
   */
  orderUnspecified(name: string): boolean {
    if (this.#options.standardOrder === "unspecified" && this.#queues.has(name) && !this.isFifo(name))
      return true;
    return this.#unordered.has(name) || this.takesDeadLetters(name);
  }

  /** True when a step that takes the next free session of `name` would depend on which one the provider picks. */
  nextSessionUnspecified(name: string): boolean {
    const queue = this.#queues.get(name);
    if (this.#options.nextSession !== "unspecified" || queue === undefined || !queue.settings.fifo)
      return false;
    return this.#freeGroups(queue).length > 1;
  }

  /** True when some queue dead-letters into `name`. */
  takesDeadLetters(name: string): boolean {
    return this.#sourcesOf(name).length > 0;
  }

  /** Every future instant at which something changes by itself (a lock, delay, session or time to live ends). */
  dueTimes(): number[] {
    const times: number[] = [];
    for (const queue of this.#queues.values()) {
      for (const message of queue.messages) {
        if (message.state === "locked") times.push(message.lockedUntil, message.abandonAt ?? 0);
        if (message.state === "delayed") times.push(message.visibleAt);
        if (message.expiresAt !== null) times.push(message.expiresAt);
      }
      for (const hold of queue.holds.values()) times.push(hold.lockedUntil);
    }
    return times.filter((time) => time > this.#now).sort((a, b) => a - b);
  }

  /** When the lock of `receipt` ends, or `undefined` when it no longer holds. */
  lockEnd(receipt: string): number | undefined {
    return this.#holder(receipt)?.message.lockedUntil;
  }

  /** Creates a queue and, unless told not to, its dead-letter queue (`<name>-dlq`) when that does not exist. */
  createQueue(name: string, options: ModelQueueOptions = {}): void {
    if (belongsToTopic(name))
      throw new QueueError(
        "Validation",
        `${name} names a subscription of a topic: createSubscription makes it`,
      );
    this.#create(name, options, deadLetterQueueName(name));
  }

  /** Creates the queue of a subscription's path, its dead letters in `<path>/$deadletterqueue` unless told otherwise. */
  createSubscriptionQueue(path: string, options: ModelQueueOptions): void {
    this.#create(path, options, subscriptionDeadLetterQueue(path));
  }

  // A queue of `name`; `deadLetters` is the dead-letter queue it gets when its options name none.
  #create(name: string, options: ModelQueueOptions, deadLetters: string): void {
    const subqueues = this.#options.deadLetterQueues === "subqueue";
    if (subqueues && options.deadLetterQueue !== undefined)
      throw new QueueError("Unsupported", "every queue keeps its dead letters in its own sub-queue");
    if (this.#options.defaultDelays === false && (options.defaultDelayMs ?? 0) > 0)
      throw new QueueError("Unsupported", "queues have no default delay");
    if (this.#queues.has(name)) throw new QueueError("QueueAlreadyExists", `queue ${name} already exists`);
    const defaults = { ...MODEL_DEFAULTS, deadLetterOnExpiration: true, ...this.#options.queueDefaults };
    const settings: QueueSettings = {
      fifo: options.fifo ?? false,
      lockDurationMs: options.lockDurationMs ?? defaults.lockDurationMs,
      maxDeliveryCount:
        options.maxDeliveryCount === undefined ? defaults.maxDeliveryCount : options.maxDeliveryCount,
      deadLetterQueue: subqueues
        ? `${name}${DEAD_LETTER_SUBQUEUE}`
        : options.deadLetterQueue === undefined
          ? deadLetters
          : options.deadLetterQueue,
      defaultDelayMs: options.defaultDelayMs ?? 0,
      defaultTimeToLiveMs: options.defaultTimeToLiveMs ?? null,
      deduplicationWindowMs: options.deduplicationWindowMs ?? defaults.deduplicationWindowMs,
      deadLetterOnExpiration: defaults.deadLetterOnExpiration,
    };
    this.#queues.set(name, emptyQueue(name, settings));
    this.#deadLetterQueueOf(settings);
  }

  /** Deletes a queue with its messages, sessions and duplicates; its dead-letter queue stays, unless it is its sub-queue. */
  deleteQueue(name: string): void {
    const queue = this.#queue(name);
    if (belongsToTopic(name))
      throw new QueueError("Validation", `${name} belongs to a subscription: deleteSubscription removes it`);
    const [source] = this.#sourcesOf(name);
    if (source !== undefined && this.#options.deadLetterQueueDeletion === "refused")
      throw new QueueError("Validation", `queue ${name} is the dead-letter queue of ${source.name}`);
    this.#queues.delete(name);
    if (this.#options.deadLetterQueues === "subqueue" && queue.settings.deadLetterQueue !== null)
      this.#queues.delete(queue.settings.deadLetterQueue);
  }

  /** Deletes a subscription's queue and the dead-letter queue made for it (a queue of its own that it names stays). */
  deleteSubscriptionQueue(path: string): void {
    const deadLetters = this.#queue(path).settings.deadLetterQueue;
    this.#queues.delete(path);
    if (deadLetters !== null && belongsToTopic(deadLetters)) this.#queues.delete(deadLetters);
  }

  /** Why a send of `message` to `queueName` would be refused, if it would (a publish checks every copy before making any). */
  refusal(queueName: string, message: ModelSend): QueueError | undefined {
    const queue = this.#queues.get(queueName);
    if (queue === undefined) return new QueueError("QueueNotFound", `queue ${queueName} does not exist`);
    return this.#refusal(queue, message);
  }

  /** Sends a message; returns the body of the message stored (the original one for a repeated deduplication id). */
  send(queueName: string, message: ModelSend): string {
    return this.#store(this.#queue(queueName), message, undefined);
  }

  // A message as a client sends it (a dead-letter copy from a client carries its mark along).
  #store(queue: ModelQueue, message: ModelSend, deadLetter: DeadLetterMark | undefined): string {
    const { settings } = queue;
    const refused = this.#refusal(queue, message);
    if (refused !== undefined) throw refused;
    const windowMs = this.#options.deduplicationWindowMs ?? settings.deduplicationWindowMs;
    const deduplicates = windowMs > 0 && (settings.fifo || this.#options.deduplicateStandardQueues !== false);
    const dedupId = deduplicates ? message.deduplicationId : undefined;
    if (dedupId !== undefined) {
      const original = queue.duplicates.get(dedupId);
      if (original !== undefined && original.until > this.#now) return original.body;
    }
    const ownDelay = settings.fifo && this.#options.fifoMessageDelays === false ? undefined : message.delayMs;
    const delayMs = this.#delay(ownDelay ?? settings.defaultDelayMs);
    const timeToLiveMs = message.timeToLiveMs ?? settings.defaultTimeToLiveMs;
    const livesFrom = this.#options.timeToLiveFrom === "visible" ? this.#now + delayMs : this.#now;
    queue.messages.push({
      body: message.body,
      sessionId: message.sessionId,
      state: delayMs > 0 ? "delayed" : "ready",
      visibleAt: this.#now + delayMs,
      lockedUntil: 0,
      latest: null,
      abandonAt: null,
      deliveryCount: 0,
      expiresAt: timeToLiveMs === null ? null : livesFrom + timeToLiveMs,
      deadLetter,
    });
    if (dedupId !== undefined)
      queue.duplicates.set(dedupId, {
        body: message.body,
        until: this.#now + windowMs,
      });
    return message.body;
  }

  /**
   * Sends messages one by one, as one call: each entry's outcome, the body stored or the code of
   * the error it was refused with; a refused entry does not stop the rest.
   */
  sendBatch(queueName: string, messages: readonly ModelSend[]): ({ body: string } | { code: string })[] {
    this.#queue(queueName);
    return messages.map((message) => {
      try {
        return { body: this.send(queueName, message) };
      } catch (error) {
        if (error instanceof QueueError) return { code: error.code };
        throw error;
      }
    });
  }

  /** Locks up to `max` ready messages, oldest first (on a FIFO queue, free groups whole), each for the queue's lock duration. */
  receive(queueName: string, max: number): ModelDelivery[] {
    const queue = this.#queue(queueName);
    const lockedUntil = this.#now + queue.settings.lockDurationMs;
    if (!queue.settings.fifo)
      return this.#ready(queue)
        .slice(0, max)
        .map((message) => this.#lock(queue, message, lockedUntil));
    // A dead-letter sub-queue requires no session: its plain receive takes groups as any FIFO queue's.
    if (this.#options.fifoReceive === "session" && !queueName.endsWith(DEAD_LETTER_SUBQUEUE))
      return this.#receiveBorrowed(queue, max);
    const received: ModelDelivery[] = [];
    for (const sessionId of this.#freeGroups(queue)) {
      // A plain receive's locks replace whatever session held the group before.
      queue.holds.delete(sessionId);
      for (const message of this.#inOrder(queue, sessionId)) {
        if (received.length >= max) break;
        received.push(this.#lock(queue, message, lockedUntil));
      }
      if (received.length >= max) break;
    }
    return received;
  }

  /** Removes a locked message for good. */
  complete(receipt: string, by: Settler = "receiver"): void {
    if (this.#options.receipts === "sqs") {
      this.#sqsSettle(receipt, by, "complete");
      return;
    }
    const { queue, message } = this.#heldBy(receipt, by);
    remove(queue, message);
    this.#settled(queue, message, by, receipt);
  }

  /** Gives a locked message back, visible again after `delayMs` (or dead-lettered when its deliveries are used up). */
  abandon(receipt: string, delayMs = 0, by: Settler = "receiver"): void {
    if (this.#options.receipts === "sqs") {
      this.#sqsSettle(receipt, by, "abandon", delayMs);
      return;
    }
    const { queue, message } = this.#heldBy(receipt, by);
    const visibleAt = this.#now + this.#delay(delayMs);
    if (this.#options.delayedAbandons === "held" && visibleAt > this.#now) {
      if (by === "other" && inSession(queue, message))
        throw new QueueError(
          "Unsupported",
          "only the client holding a message's session can keep it for a delay",
        );
      message.abandonAt = visibleAt;
      // A lock of its own is kept (renewed) until then; a session's lock ends with its session.
      if (!inSession(queue, message)) message.lockedUntil = visibleAt;
      return;
    }
    this.#release(queue, message, visibleAt);
    this.#settled(queue, message, by, receipt);
  }

  /** Moves a locked message to its queue's dead-letter queue; `Unsupported` when the queue has none. */
  deadLetter(receipt: string, reason: string, description?: string, by: Settler = "receiver"): void {
    if (this.#options.receipts === "sqs") {
      this.#sqsDeadLetter(receipt, by, reason, description);
      return;
    }
    const { queue, message } = this.#heldBy(receipt, by);
    if (!this.#moveToDeadLetter(queue, message, reason, description))
      throw new QueueError("Unsupported", `queue ${queue.name} has no dead-letter queue`);
    this.#settled(queue, message, by, receipt);
  }

  /** Extends a lock to the queue's lock duration from now; returns the new end. Messages of an accepted session follow its lock. */
  renew(receipt: string, by: Settler = "receiver"): number {
    if (this.#options.receipts === "sqs") return this.#sqsRenew(receipt, by);
    const { queue, message } = this.#heldBy(receipt, by);
    if (inSession(queue, message))
      throw new QueueError("Unsupported", "messages of an accepted session are locked by the session");
    const lockedUntil = this.#now + queue.settings.lockDurationMs;
    // A held abandon keeps the lock until its delay ends, whatever the renewal says.
    message.lockedUntil = message.abandonAt ?? lockedUntil;
    return lockedUntil;
  }

  /** Removes every message of a queue, locked ones included; returns how many. Accepted sessions stay held. */
  purge(queueName: string): number {
    const queue = this.#queue(queueName);
    const purged =
      this.#options.purge !== "ready"
        ? queue.messages
        : queue.settings.fifo
          ? this.#freeGroups(queue).flatMap((sessionId) => this.#ready(queue, sessionId))
          : this.#ready(queue);
    queue.messages = queue.messages.filter((message) => !purged.includes(message));
    return purged.length;
  }

  /**
   * Moves the ready messages of `deadLetterQueue` (on a FIFO queue, those of free groups) back to
   * the queue each came from, or to `target`: fresh messages without the dead-letter marks or a
   * time to live. Those with nowhere to go stay. Returns how many moved.
   */
  redrive(deadLetterQueue: string, target?: string): number {
    if (this.#options.deadLetterQueues === "subqueue" && !deadLetterQueue.endsWith(DEAD_LETTER_SUBQUEUE))
      throw new QueueError("Validation", `${deadLetterQueue} is not a dead-letter queue`);
    const destination = target ?? deadLetterQueue.slice(0, -DEAD_LETTER_SUBQUEUE.length);
    if (this.#options.subscriptionRedrive === false && belongsToTopic(destination))
      throw new QueueError("Unsupported", `nothing can be sent to subscription ${destination}`);
    const from = this.#queue(deadLetterQueue);
    if (target !== undefined) this.#queue(target);
    const ready = from.settings.fifo
      ? this.#freeGroups(from).flatMap((sessionId) => this.#ready(from, sessionId))
      : this.#ready(from);
    const how = this.#options.redrive;
    const sources = this.#sourcesOf(from.name);
    const soleSource = how?.toSoleSource && sources.length === 1 ? sources[0]!.name : undefined;
    let moved = 0;
    for (const message of ready) {
      const to = this.#queues.get(target ?? message.deadLetter?.sourceQueue ?? soleSource ?? "");
      if (to === undefined || to === from) {
        if (how?.receives) this.#receivedByRedrive(from, message);
        continue;
      }
      remove(from, message);
      // A redrive that receives took it again: the receiving client's earlier receipt is spent.
      if (how?.receives) this.#receivedAgain(message);
      // A FIFO queue needs a session: a message without one joins one named after the queue it leaves.
      const sessionId = to.settings.fifo ? (message.sessionId ?? from.name) : message.sessionId;
      // A redrive that receives is a client: it sends each message again, as any send goes.
      if (how?.receives) this.#store(to, { body: message.body, sessionId, delayMs: 0 }, undefined);
      else to.messages.push({ ...fresh(message), sessionId, deadLetter: undefined });
      this.#unordered.add(to.name);
      moved++;
    }
    return moved;
  }

  /** Counts a queue's messages by state, and those in its dead-letter queue. */
  stats(queueName: string): QueueStats {
    const queue = this.#queue(queueName);
    const count = (state: MessageState) => queue.messages.filter((message) => message.state === state).length;
    const dead =
      queue.settings.deadLetterQueue === null ? undefined : this.#queues.get(queue.settings.deadLetterQueue);
    return {
      active: count("ready"),
      inFlight: count("locked"),
      delayed: count("delayed"),
      deadLettered: dead?.messages.length ?? 0,
    };
  }

  /** Each message a queue holds now as `body:state` (a peek's states: active, inFlight, delayed), sorted. */
  contents(queueName: string): string[] {
    const shown = (message: ModelMessage) =>
      this.#options.peekHeldExpired !== false || message.expiresAt === null || message.expiresAt > this.#now;
    return this.#queue(queueName)
      .messages.filter(shown)
      .map((message) => `${message.body}:${PEEKED_STATE[message.state]}`)
      .sort();
  }

  /**
   * Accepts a session: the one named (`SessionLocked` while its group is locked), or the free
   * group whose oldest ready message is oldest (`NoSessionAvailable` when there is none).
   */
  acceptSession(queueName: string, sessionId?: string): ModelSession {
    const queue = this.#queue(queueName);
    if (!queue.settings.fifo) throw new QueueError("Unsupported", `queue ${queueName} has no sessions`);
    const id = sessionId ?? this.#freeGroups(queue)[0];
    if (id === undefined) throw new QueueError("NoSessionAvailable", `no session of ${queueName} is free`);
    if (this.#groupLocked(queue, id))
      throw new QueueError("SessionLocked", `session ${id} of ${queueName} is held by another receiver`);
    const token = `session-${++this.#tokens}`;
    const lockedUntil = this.#now + this.#sessionLockDurationMs(queue);
    queue.holds.set(id, { token, lockedUntil });
    this.#sessions.set(token, { queue: queueName, sessionId: id, closed: false });
    return { token, sessionId: id, lockedUntil };
  }

  /** Locks up to `max` ready messages of a held session, in order, until the session's lock ends. */
  receiveFromSession(token: string, max: number): ModelDelivery[] {
    const { queue, sessionId, hold } = this.#heldSession(token);
    return this.#inOrder(queue, sessionId)
      .slice(0, max)
      .map((message) => this.#lock(queue, message, hold.lockedUntil));
  }

  /** Extends a session's lock, and its locked messages', to the session lock duration from now; returns the new end. */
  renewSession(token: string): number {
    const { queue, sessionId, hold } = this.#heldSession(token);
    hold.lockedUntil = this.#now + this.#sessionLockDurationMs(queue);
    for (const message of queue.messages)
      if (message.sessionId === sessionId && message.state === "locked")
        message.lockedUntil = hold.lockedUntil;
    return hold.lockedUntil;
  }

  /** The state kept with a held session (`null` when none was set). */
  sessionState(token: string): string | null {
    const { queue, sessionId } = this.#heldSession(token);
    return queue.states.get(sessionId) ?? null;
  }

  /** Sets (or with `null` clears) the state of a held session. */
  setSessionState(token: string, state: string | null): void {
    const { queue, sessionId } = this.#heldSession(token);
    if (state === null) queue.states.delete(sessionId);
    else queue.states.set(sessionId, state);
  }

  /** Ends a session: its locked messages are ready again at once; a lock already lost or replaced is left alone. */
  closeSession(token: string): void {
    const session = this.#sessions.get(token);
    if (session === undefined || session.closed) return;
    session.closed = true;
    const queue = this.#queues.get(session.queue);
    if (queue === undefined || queue.holds.get(session.sessionId)?.token !== token) return;
    queue.holds.delete(session.sessionId);
    for (const message of [...queue.messages])
      if (message.sessionId === session.sessionId && message.state === "locked")
        this.#release(queue, message, this.#now);
  }

  /*
   * Receipts as SQS judges them, through a client that refuses what it settled itself. DeleteMessage:
   * a message already gone is success; on a standard queue any receipt of the message deletes it,
   * after its lock ended and even while another receiver holds it; on a FIFO queue only the latest
   * receipt within its lock. ChangeMessageVisibility (abandon, renew): a receipt of a message gone
   * is invalid; an older receipt, or the latest after its lock ended, succeeds and changes nothing;
   * an abandon with a delay keeps the message in flight until the delay ends.
   * A receipt of a queue deleted since (and not made again) is invalid.
   */
  #sqsSettle(receipt: string, by: Settler, kind: "complete" | "abandon", delayMs = 0): void {
    const { issued, queue } = this.#sqsReceipt(receipt, by, true);
    const { message } = issued;
    const present = queue.messages.includes(message);
    const holds = present && holdsLock(message, receipt);
    if (kind === "complete") {
      if (!present) return;
      if (queue.settings.fifo && !holds) throw fifoReceiptRefused();
      remove(queue, message);
      return;
    }
    if (!present) throw new QueueError("InvalidReceipt", "the message of this receipt is gone");
    if (!holds) return;
    // An abandon is a visibility change: with a delay the message stays in flight until it ends.
    const visibleAt = this.#now + this.#delay(delayMs);
    if (visibleAt > this.#now) message.lockedUntil = visibleAt;
    else this.#release(queue, message, visibleAt);
  }

  #sqsRenew(receipt: string, by: Settler): number {
    const { issued, queue } = this.#sqsReceipt(receipt, by);
    const lockedUntil = this.#now + queue.settings.lockDurationMs;
    this.#sqsChangeVisibility(queue, issued, receipt, lockedUntil);
    if (by === "receiver") issued.rememberedUntil = lockedUntil;
    return lockedUntil;
  }

  /**
   * Dead-lettering through SQS: the receiving client, while its lock holds, extends the lock, sends
   * a copy with the reason to the dead-letter queue, then deletes the original (as a complete
   * does). Another client cannot read the message: it only proves the receipt (the lock set to end
   * when the receipt said) and answers `Unsupported`.
   */
  #sqsDeadLetter(receipt: string, by: Settler, reason: string, description: string | undefined): void {
    const { issued, queue } = this.#sqsReceipt(receipt, by);
    const { message } = issued;
    const target = queue.settings.deadLetterQueue;
    if (target === null) throw new QueueError("Unsupported", `queue ${queue.name} has no dead-letter queue`);
    if (by === "other" || !issued.remembered || issued.rememberedUntil + FORGET_AFTER_MS < this.#now) {
      const left = Math.max(1_000, Math.ceil((issued.lockedUntil - this.#now) / 1_000) * 1_000);
      this.#sqsChangeVisibility(queue, issued, receipt, this.#now + left);
      throw new QueueError("Unsupported", "only the client that received a message can dead-letter it");
    }
    if (issued.rememberedUntil <= this.#now)
      throw new QueueError("InvalidReceipt", "this receipt's lock has ended");
    this.#sqsChangeVisibility(queue, issued, receipt, this.#now + queue.settings.lockDurationMs);
    const deadLetters = this.#queues.get(target);
    if (deadLetters === undefined) throw new QueueError("QueueNotFound", `queue ${target} does not exist`);
    this.#store(
      deadLetters,
      {
        body: message.body,
        sessionId: message.sessionId ?? (deadLetters.settings.fifo ? queue.name : undefined),
        deduplicationId: `dl-${message.body}`,
        delayMs: 0,
      },
      { reason, description, sourceQueue: queue.name },
    );
    this.#unordered.add(target);
    issued.spentBy.add(by);
    issued.remembered = false;
    if (queue.settings.fifo && !(queue.messages.includes(message) && holdsLock(message, receipt)))
      throw fifoReceiptRefused();
    remove(queue, message);
  }

  // A redrive that receives a message it cannot move gives it back: one delivery more, and the
  // receiving client's earlier receipt of it is spent (it received the message again).
  #receivedByRedrive(queue: ModelQueue, message: ModelMessage): void {
    this.#receivedAgain(message);
    message.latest = `lock-${++this.#tokens}`;
    message.deliveryCount++;
    if (this.#exhausted(queue, message))
      this.#moveToDeadLetter(queue, message, MODEL_REASONS.maxDeliveryCount);
  }

  // A receipt the settling client has not spent, and the queue its URL names now (a queue made again is a new one).
  // A settle (`spend`) spends the receipt for its client first, whatever SQS then answers.
  #sqsReceipt(receipt: string, by: Settler, spend = false): { issued: IssuedReceipt; queue: ModelQueue } {
    const issued = this.#issued.get(receipt);
    if (issued === undefined || issued.spentBy.has(by))
      throw new QueueError(
        "InvalidReceipt",
        "this client settled this receipt or received its message again",
      );
    if (spend) {
      issued.spentBy.add(by);
      if (by === "receiver") issued.remembered = false;
    }
    const queue = this.#queues.get(issued.queue.name);
    if (queue === undefined)
      throw new QueueError("InvalidReceipt", `queue ${issued.queue.name} no longer exists`);
    return { issued, queue };
  }

  // ChangeMessageVisibility: invalid for a message gone; applies only to the latest receipt within its lock.
  #sqsChangeVisibility(queue: ModelQueue, issued: IssuedReceipt, receipt: string, lockedUntil: number): void {
    const { message } = issued;
    if (!queue.messages.includes(message))
      throw new QueueError("InvalidReceipt", "the message of this receipt is gone");
    if (holdsLock(message, receipt)) message.lockedUntil = lockedUntil;
  }

  // Why a message cannot go to a queue at all, if it cannot.
  #refusal(queue: ModelQueue, message: ModelSend): QueueError | undefined {
    if (!queue.settings.fifo) return undefined;
    if (message.sessionId === undefined)
      return new QueueError(
        "Validation",
        `queue ${queue.name} is a FIFO queue: every message needs a sessionId`,
      );
    if (this.#options.fifoMessageDelays === false && (message.delayMs ?? 0) > 0)
      return new QueueError("Unsupported", `queue ${queue.name} is a FIFO queue: only the queue has a delay`);
    return undefined;
  }

  // A delay as the provider counts it: in whole units, a part rounded up.
  #delay(ms: number): number {
    const unit = this.#options.delayUnitMs ?? 1;
    return Math.ceil(ms / unit) * unit;
  }

  #sessionLockDurationMs(queue: ModelQueue): number {
    const duration = this.#options.sessionLockDurationMs ?? MODEL_DEFAULTS.sessionLockDurationMs;
    return duration === "queue" ? queue.settings.lockDurationMs : duration;
  }

  // The other queues that dead-letter into `name`.
  #sourcesOf(name: string): ModelQueue[] {
    return [...this.#queues.values()].filter(
      (queue) => queue.name !== name && queue.settings.deadLetterQueue === name,
    );
  }

  #queue(name: string): ModelQueue {
    const queue = this.#queues.get(name);
    if (queue === undefined) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    return queue;
  }

  // The dead-letter queue a queue's settings name, made like its source when it is missing.
  #deadLetterQueueOf(settings: QueueSettings): ModelQueue | undefined {
    const name = settings.deadLetterQueue;
    if (name === null) return undefined;
    let queue = this.#queues.get(name);
    if (queue === undefined) {
      queue = emptyQueue(name, deadLetterSettings(settings));
      this.#queues.set(name, queue);
    }
    return queue;
  }

  // Ready messages in arrival order; of one group when `sessionId` is given.
  #ready(queue: ModelQueue, sessionId?: string): ModelMessage[] {
    return queue.messages.filter(
      (message) => message.state === "ready" && (sessionId === undefined || message.sessionId === sessionId),
    );
  }

  // The messages of a group a receive may take now, in order: its ready ones, or with strict
  // session order those before the first that is still delayed.
  #inOrder(queue: ModelQueue, sessionId: string): ModelMessage[] {
    if (this.#options.sessionOrder !== "strict") return this.#ready(queue, sessionId);
    const taken: ModelMessage[] = [];
    for (const message of queue.messages) {
      if (message.sessionId !== sessionId || message.state === "locked") continue;
      if (message.state === "delayed") break;
      taken.push(message);
    }
    return taken;
  }

  #groupLocked(queue: ModelQueue, sessionId: string): boolean {
    const hold = queue.holds.get(sessionId);
    return (
      (hold !== undefined && hold.lockedUntil > this.#now) ||
      queue.messages.some((message) => message.sessionId === sessionId && message.state === "locked")
    );
  }

  // Groups with a ready message that nobody locks, in the order of their oldest ready message.
  #freeGroups(queue: ModelQueue): string[] {
    const groups = new Set<string>();
    for (const message of this.#ready(queue))
      if (message.sessionId !== undefined && !this.#groupLocked(queue, message.sessionId))
        groups.add(message.sessionId);
    return [...groups];
  }

  // The receiving client knows its earlier receipt of a message it receives again holds nothing any more.
  #receivedAgain(message: ModelMessage): void {
    if (message.latest !== null) this.#issued.get(message.latest)?.spentBy.add("receiver");
  }

  #lock(queue: ModelQueue, message: ModelMessage, lockedUntil: number): ModelDelivery {
    this.#receivedAgain(message);
    const receipt = `lock-${++this.#tokens}`;
    message.state = "locked";
    message.latest = receipt;
    message.lockedUntil = lockedUntil;
    message.deliveryCount++;
    this.#issued.set(receipt, {
      queue,
      message,
      lockedUntil,
      remembered: true,
      rememberedUntil: lockedUntil,
      spentBy: new Set(),
    });
    return {
      receipt,
      body: message.body,
      deliveryCount: message.deliveryCount,
      lockedUntil,
      deadLetter: message.deadLetter,
      sessionId: message.sessionId,
    };
  }

  // The messages of the first free session, locked as a session borrowed until its receiver has
  // settled each (what another client settles, it does not hear of) or the lock ends.
  #receiveBorrowed(queue: ModelQueue, max: number): ModelDelivery[] {
    const [sessionId] = this.#freeGroups(queue);
    if (sessionId === undefined) return [];
    const lockedUntil = this.#now + this.#sessionLockDurationMs(queue);
    const borrowed = new Set<string>();
    queue.holds.set(sessionId, { token: `borrowed-${++this.#tokens}`, lockedUntil, borrowed });
    const taken = this.#inOrder(queue, sessionId)
      .slice(0, max)
      .map((message) => this.#lock(queue, message, lockedUntil));
    for (const delivery of taken) borrowed.add(delivery.receipt);
    return taken;
  }

  // A receipt settled by `by`, or found spent by its receiver: a borrowed session whose receiver
  // is done with its last receipt is let go.
  #settled(queue: ModelQueue, message: ModelMessage, by: Settler, receipt: string | null): void {
    const hold = message.sessionId === undefined ? undefined : queue.holds.get(message.sessionId);
    if (hold?.borrowed === undefined || by !== "receiver" || receipt === null) return;
    if (hold.borrowed.delete(receipt) && hold.borrowed.size === 0) queue.holds.delete(message.sessionId!);
  }

  // A lock the receiver is told has ended: it stops holding a borrowed session for it.
  #heldBy(receipt: string, by: Settler): { queue: ModelQueue; message: ModelMessage } {
    try {
      return this.#held(receipt);
    } catch (error) {
      const issued = this.#issued.get(receipt);
      if (issued !== undefined) this.#settled(issued.queue, issued.message, by, receipt);
      throw error;
    }
  }

  #heldSession(token: string) {
    const session = this.#sessions.get(token);
    if (session === undefined || session.closed)
      throw new QueueError("ClientClosed", "this session has been closed");
    const queue = this.#queues.get(session.queue);
    const hold = queue?.holds.get(session.sessionId);
    if (queue === undefined || hold === undefined || hold.token !== token || hold.lockedUntil <= this.#now)
      throw new QueueError(
        "SessionLockLost",
        `the lock on session ${session.sessionId} has expired or was released`,
      );
    return { queue, sessionId: session.sessionId, hold };
  }

  #holder(receipt: string): { queue: ModelQueue; message: ModelMessage } | undefined {
    const issued = this.#issued.get(receipt);
    if (issued === undefined) return undefined;
    const { queue, message } = issued;
    const current = this.#queues.get(queue.name) === queue && queue.messages.includes(message);
    return current && holdsLock(message, receipt) && message.lockedUntil > this.#now ? issued : undefined;
  }

  // A receipt holds only while its lock is the message's current one and has not ended.
  #held(receipt: string): { queue: ModelQueue; message: ModelMessage } {
    const held = this.#holder(receipt);
    if (held === undefined)
      throw new QueueError("InvalidReceipt", "the lock of this receipt ended, was replaced or was settled");
    return held;
  }

  #exhausted(queue: ModelQueue, message: ModelMessage): boolean {
    const max = queue.settings.maxDeliveryCount;
    return max !== null && message.deliveryCount >= max;
  }

  // A lock that ends (abandon, expiry, a closed session): out of deliveries → dead letter; out of time → expired; else visible again.
  #release(queue: ModelQueue, message: ModelMessage, visibleAt: number): void {
    if (
      this.#exhausted(queue, message) &&
      this.#moveToDeadLetter(queue, message, MODEL_REASONS.maxDeliveryCount)
    )
      return;
    if (message.expiresAt !== null && message.expiresAt <= this.#now) {
      this.#expire(queue, message);
      return;
    }
    message.state = visibleAt > this.#now ? "delayed" : "ready";
    message.visibleAt = visibleAt;
    message.abandonAt = null;
  }

  // Messages whose time to live ended go to the dead-letter queue (TTLExpired), or away when there is none.
  #expire(queue: ModelQueue, message: ModelMessage): void {
    if (
      !queue.settings.deadLetterOnExpiration ||
      !this.#moveToDeadLetter(queue, message, MODEL_REASONS.expired)
    )
      remove(queue, message);
  }

  // A dead letter is a fresh message of the dead-letter queue: ready, never delivered, no time to live.
  #moveToDeadLetter(queue: ModelQueue, message: ModelMessage, reason: string, description?: string): boolean {
    const target = this.#deadLetterQueueOf(queue.settings);
    if (target === undefined) return false;
    remove(queue, message);
    target.messages.push({ ...fresh(message), deadLetter: { reason, description, sourceQueue: queue.name } });
    this.#unordered.add(target.name);
    return true;
  }

  // Applies everything due by now; the outcome does not depend on the order (dead-letter queues are compared as sets).
  #applyTime(): void {
    for (const queue of [...this.#queues.values()])
      for (const message of [...queue.messages]) {
        const releasedAt = Math.min(message.lockedUntil, message.abandonAt ?? Number.POSITIVE_INFINITY);
        if (message.state === "locked" && releasedAt <= this.#now) {
          this.#release(queue, message, releasedAt);
          this.#settled(queue, message, "receiver", message.latest);
        }
        if (message.state === "delayed" && message.visibleAt <= this.#now) message.state = "ready";
        if (message.state !== "locked" && message.expiresAt !== null && message.expiresAt <= this.#now)
          this.#expire(queue, message);
      }
  }
}

/** The default name of a queue's dead-letter queue: `<name>-dlq`, with `.fifo` kept last. */
function deadLetterQueueName(name: string): string {
  return name.endsWith(".fifo") ? `${name.slice(0, -".fifo".length)}-dlq.fifo` : `${name}-dlq`;
}

/** How long after its lock ended the receiving client still remembers a message (the SQS provider's FORGET_AFTER_EXPIRY_MS). */
const FORGET_AFTER_MS = 10_000;

/** A receipt handed out, and what the client that received it remembers of it. */
interface IssuedReceipt {
  readonly queue: ModelQueue;
  readonly message: ModelMessage;
  /** When the lock it was issued with ends (what the receipt's text says). */
  readonly lockedUntil: number;
  /** Whether the receiving client still keeps the message (until it settles it or receives it again). */
  remembered: boolean;
  /** When the receiving client believes the lock ends (moved by its renewals). */
  rememberedUntil: number;
  /** The clients that settled it (each refuses it from then on). */
  readonly spentBy: Set<Settler>;
}

/** A dead-letter queue made for `source`: same kind and lock duration, never dead-letters, nothing expires. */
function deadLetterSettings(source: QueueSettings): QueueSettings {
  return {
    fifo: source.fifo,
    lockDurationMs: source.lockDurationMs,
    maxDeliveryCount: null,
    deadLetterQueue: null,
    defaultDelayMs: 0,
    defaultTimeToLiveMs: null,
    deduplicationWindowMs: 0,
    deadLetterOnExpiration: false,
  };
}

/** A message as it arrives in another queue: ready, never delivered, no lock and no time to live. */
function fresh(message: ModelMessage): ModelMessage {
  return {
    ...message,
    state: "ready",
    visibleAt: 0,
    lockedUntil: 0,
    latest: null,
    abandonAt: null,
    deliveryCount: 0,
    expiresAt: null,
  };
}

/** Whether `receipt` is the lock a message is held by now. */
function holdsLock(message: ModelMessage, receipt: string): boolean {
  return message.state === "locked" && message.latest === receipt;
}

/** Whether a message is locked by the session that holds its group (its lock is the session's). */
function inSession(queue: ModelQueue, message: ModelMessage): boolean {
  return message.sessionId !== undefined && queue.holds.has(message.sessionId);
}

/** Takes a message out of its queue. */
function remove(queue: ModelQueue, message: ModelMessage): void {
  queue.messages = queue.messages.filter((other) => other !== message);
}

/** SQS's answer to a FIFO queue's receipt that is not the latest within its lock. */
function fifoReceiptRefused(): QueueError {
  return new QueueError("InvalidReceipt", "on a FIFO queue only the latest receipt within its lock settles");
}

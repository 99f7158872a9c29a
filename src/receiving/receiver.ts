import type { TimerHandle } from "../core/clock.js";
import { QueueError, toQueueError } from "../core/errors.js";
import type { ReceivedMessage } from "../core/message.js";
import { bodyBytes } from "../core/message.js";
import { Deliveries } from "./deliveries.js";
import { DeliveryRunner } from "./delivery-runner.js";
import { type Arrival, Intake, type MessageOutcome } from "./intake.js";
import type { ReceiverOptions, SubscribedEvents } from "./options.js";
import { type ResolvedQueue, type ResolvedReceiver, resolveReceiver } from "./receiver-config.js";

/** How long recorded ids and dismissed items are kept: 30 days. */
export const RETENTION_MS = 30 * 24 * 60 * 60 * 1_000;
/** Messages asked of a queue at a time. */
export const RECEIVE_BATCH = 10;
/** Batches asked of one queue in one tick at most. */
export const BATCHES_PER_TICK = 10;
/** Parked messages an operator retried that a tick reads again, before the queues. */
export const RETRIED_PER_TICK = 20;

/** Options of one tick. */
export interface TickOptions {
  /** How long the tick may go on asking for batches, on the receiver's clock (default: `tickBudgetMs`). */
  budgetMs?: number;
}

/** A message handed to the receiver by a platform that pushes batches: its body as sent. */
export interface PushedMessage {
  readonly body: Uint8Array | string;
}

/** Options of {@link Receiver.receiveBatch}. */
export interface BatchOptions {
  /** Run the deliveries that are due afterwards, as a tick does (default true). */
  deliver?: boolean;
}

/** What a receiver has done since it was made. */
export interface ReceiverMetrics {
  /** Messages read from queues, pushed batches and operators' retries. */
  received: number;
  kept: number;
  repeats: number;
  parked: number;
  /** Messages left on their queue because the store could not take them then. */
  left: number;
  /** Subscriber attempts that succeeded, failed and will be retried, and deliveries that failed for good. */
  delivered: number;
  attemptsFailed: number;
  deliveriesFailed: number;
  ticks: number;
}

/**
 * Receives queues into an event store: each tick reads batches from its queues, keeps each
 * message's event (its id recorded, an outbox row and a delivery per subscriber) in one
 * transaction and only then completes the message; a repeat is completed and keeps nothing;
 * a message that cannot become an event is parked whole for an operator. Subscribers run from
 * the outbox with retries.
 */
export class Receiver<const Subscribed extends SubscribedEvents = SubscribedEvents> {
  /** Failed deliveries and parked messages, to list, retry and dismiss. */
  readonly deliveries: Deliveries;
  readonly #config: ResolvedReceiver;
  readonly #intake: Intake;
  readonly #runner: DeliveryRunner;
  readonly #metrics: ReceiverMetrics = {
    received: 0,
    kept: 0,
    repeats: 0,
    parked: 0,
    left: 0,
    delivered: 0,
    attemptsFailed: 0,
    deliveriesFailed: 0,
    ticks: 0,
  };
  /** The tick under way (ticks run one at a time). */
  #ticking: Promise<unknown> = Promise.resolve();
  #started = false;
  #timer: TimerHandle | undefined;
  #scheduled: Promise<void> | undefined;
  #again = false;
  #closed: Promise<void> | undefined;

  /** Checks the options (a `Configuration` error names the rule broken); opens nothing until the first tick. */
  constructor(options: ReceiverOptions<Subscribed>) {
    this.#config = resolveReceiver(options as ReceiverOptions);
    const { store, clock, subscribers, subscribersOf, concurrency } = this.#config;
    this.#intake = new Intake(store, clock, subscribersOf);
    this.#runner = new DeliveryRunner(store, clock, subscribers, concurrency);
    this.deliveries = new Deliveries(store, clock);
  }

  /** What this receiver has done so far. */
  get metrics(): Readonly<ReceiverMetrics> {
    return { ...this.#metrics };
  }

  /**
   * One tick: deletes what has expired, reads up to 20 retried parked messages, asks each queue
   * for batches of 10 (again while one comes back full, at most 10 times, within the budget),
   * then runs every delivery that is due. Rejects with the first failure once the rest is done;
   * a message the store could not take stays on its queue either way.
   */
  async tick(options: TickOptions = {}): Promise<void> {
    await this.#queueTick(options);
  }

  /** Runs a tick after the one under way; resolves whether a queue may have more than it took. */
  #queueTick(options: TickOptions): Promise<boolean> {
    if (this.#closed !== undefined) return Promise.reject(closed());
    const budgetMs = options.budgetMs ?? this.#config.tickBudgetMs;
    if (typeof budgetMs !== "number" || !(budgetMs >= 0))
      return Promise.reject(
        new QueueError("Validation", "budgetMs must be a number of milliseconds, 0 or more"),
      );
    const run = this.#ticking.then(() => this.#tick(budgetMs));
    this.#ticking = run.catch(() => undefined);
    return run;
  }

  /**
   * Takes in a batch a platform pushed (Cloudflare Queues, an AWS Lambda SQS event) for the queue
   * named `queue`, and answers each message's outcome: `left` ones should be retried by the
   * platform, whose dead-letter queue takes one that keeps failing; the others acknowledged.
   */
  async receiveBatch(
    queue: string,
    messages: readonly PushedMessage[],
    options: BatchOptions = {},
  ): Promise<MessageOutcome[]> {
    if (this.#closed !== undefined) throw closed();
    const source = this.#config.queues.get(queue);
    if (source === undefined)
      throw new QueueError(
        "QueueNotFound",
        `this receiver reads no queue named ${JSON.stringify(queue)}; it reads ${[...this.#config.queues.keys()].join(", ")}`,
      );
    if (!Array.isArray(messages))
      throw new QueueError("Validation", "receiveBatch takes an array of messages");
    const arrivals = messages.map((message, index): Arrival => {
      const body = (message as Partial<PushedMessage> | null)?.body;
      if (typeof body !== "string" && !(body instanceof Uint8Array))
        throw new QueueError(
          "Validation",
          `message ${index} of the batch has no body (a string or a Uint8Array)`,
        );
      return { body: bodyBytes(body) };
    });
    const { outcomes, failure } = await this.#config.store.open().then(
      () => this.#take(source, arrivals),
      (error: unknown) => ({
        outcomes: arrivals.map((): MessageOutcome => "left"),
        failure: toQueueError(error),
      }),
    );
    if (options.deliver ?? true)
      await this.#deliver(this.#config.clock.now()).catch((error) => this.#config.onError(error));
    if (failure !== undefined && outcomes.every((outcome) => outcome === "left"))
      this.#config.onError(failure);
    return outcomes;
  }

  /** The name of the receiver's queue that reads `queue` on its platform (its `queue`, else its `name`), if any. */
  queueNamed(queue: string): string | undefined {
    for (const source of this.#config.queues.values()) if (source.queue === queue) return source.name;
    return this.#config.queues.has(queue) ? queue : undefined;
  }

  /** Ticks now and then at least every `intervalMs` (and at once again while queues have more) until `stop()`. */
  start(): void {
    if (this.#closed !== undefined) throw closed();
    if (this.#started) return;
    this.#started = true;
    this.#arm();
    this.#kick();
  }

  /** Stops ticking; resolves once the tick under way has ended. */
  async stop(): Promise<void> {
    this.#started = false;
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#scheduled;
    await this.#ticking;
  }

  /** Stops and closes the store (a pool it made from a URL, never one it was given, nor the queue clients). */
  close(): Promise<void> {
    this.#closed ??= this.stop().then(() => this.#config.store.close());
    return this.#closed;
  }

  #arm(): void {
    this.#timer = this.#config.clock.setTimer(() => {
      if (!this.#started) return;
      this.#arm();
      this.#kick();
    }, this.#config.intervalMs);
  }

  /** Starts a tick now, or right after the one under way. */
  #kick(): void {
    if (this.#scheduled !== undefined) {
      this.#again = true;
      return;
    }
    this.#scheduled = this.#queueTick({}).then(
      (more) => {
        // A queue that filled every batch has more waiting: the next tick starts at once.
        if (more) this.#again = true;
        this.#afterScheduled();
      },
      (error: unknown) => {
        this.#config.onError(error);
        this.#afterScheduled();
      },
    );
  }

  #afterScheduled(): void {
    this.#scheduled = undefined;
    if (this.#again && this.#started) {
      this.#again = false;
      this.#kick();
    }
  }

  async #tick(budgetMs: number): Promise<boolean> {
    const { store, clock, queues } = this.#config;
    const started = clock.now();
    this.#metrics.ticks++;
    // A store that cannot answer now ends the tick at once, instead of being waited for at every step.
    await store.open();
    await store.expire(started - RETENTION_MS);
    await this.#readRetried();
    const failures: unknown[] = [];
    let storeFailed = false;
    const pulls = [...queues.values()].map(async (queue) => {
      if (queue.client === undefined) return false;
      try {
        const pulled = await this.#pull(queue, started, budgetMs);
        if (pulled.storeFailure !== undefined) {
          storeFailed = true;
          failures.push(pulled.storeFailure);
        }
        return pulled.more;
      } catch (error) {
        failures.push(error);
        return false;
      }
    });
    const more = (await Promise.all(pulls)).some(Boolean);
    if (!storeFailed) await this.#deliver(started).catch((error) => failures.push(error));
    if (failures.length > 0) {
      for (const extra of failures.slice(1)) this.#config.onError(extra);
      throw toQueueError(failures[0]);
    }
    return more;
  }

  /** Reads again the parked messages an operator retried, each with its queue's rules as they are now. */
  async #readRetried(): Promise<void> {
    const { store, queues } = this.#config;
    const retried = await store.retriedMessages([...queues.keys()], RETRIED_PER_TICK);
    const byQueue = new Map<string, typeof retried>();
    for (const message of retried)
      byQueue.set(message.queue, [...(byQueue.get(message.queue) ?? []), message]);
    let failure: unknown;
    for (const [name, messages] of byQueue) {
      const result = await this.#take(queues.get(name)!, messages);
      failure ??= result.failure;
    }
    if (failure !== undefined) throw failure;
  }

  /**
   * Asks a queue for batches. Resolves whether it may have more than this tick took, and the
   * store's failure that stopped it, if one did; rejects when the queue itself fails.
   */
  async #pull(queue: ResolvedQueue, started: number, budgetMs: number): Promise<Pulled> {
    const { clock } = this.#config;
    const client = queue.client!;
    const completions: Promise<void>[] = [];
    const pulled: Pulled = { more: false, storeFailure: undefined };
    try {
      for (let batch = 0; batch < BATCHES_PER_TICK; batch++) {
        if (clock.now() - started >= budgetMs) break;
        const messages = await client.receiveMessages(queue.queue, RECEIVE_BATCH, 0);
        pulled.more = messages.length === RECEIVE_BATCH;
        if (messages.length === 0) break;
        const result = await this.#take(queue, messages);
        completions.push(this.#complete(queue, messages, result.outcomes));
        pulled.storeFailure = result.failure;
        if (result.failure !== undefined || !pulled.more) break;
      }
    } finally {
      await Promise.all(completions);
    }
    return pulled;
  }

  /** Completes every message the store has taken (kept, a repeat, or parked); those left stay locked until the queue delivers them again. */
  async #complete(
    queue: ResolvedQueue,
    messages: readonly ReceivedMessage[],
    outcomes: readonly MessageOutcome[],
  ): Promise<void> {
    const client = queue.client!;
    await Promise.all(
      messages.map(async (message, index) => {
        if (outcomes[index] === "left") return;
        try {
          await client.completeMessage(message.receiptHandle);
        } catch (error) {
          // Its lock ended first: the queue delivers it again, and the copy is completed as a repeat.
          this.#config.onError(error);
        }
      }),
    );
  }

  async #take(queue: ResolvedQueue, arrivals: readonly Arrival[]) {
    const result = await this.#intake.take(queue, arrivals);
    const metrics = this.#metrics;
    metrics.received += arrivals.length;
    for (const outcome of result.outcomes)
      if (outcome === "kept") metrics.kept++;
      else if (outcome === "repeat") metrics.repeats++;
      else if (outcome === "parked") metrics.parked++;
      else metrics.left++;
    return result;
  }

  async #deliver(since: number): Promise<void> {
    const run = await this.#runner.runDue(since);
    this.#metrics.delivered += run.succeeded;
    this.#metrics.deliveriesFailed += run.failed;
    this.#metrics.attemptsFailed += run.attempted - run.succeeded;
  }
}

/** What asking one queue gave. */
interface Pulled {
  more: boolean;
  storeFailure: QueueError | undefined;
}

function closed(): QueueError {
  return new QueueError("ClientClosed", "the receiver is closed");
}

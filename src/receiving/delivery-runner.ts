import type { Clock } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import { backoffDelay } from "../core/retry.js";
import { deliveryIdOf } from "./item-ids.js";
import type { DeliveryContext } from "./options.js";
import type { ResolvedSubscriber } from "./receiver-config.js";
import type { ClaimedDelivery, DeliverySettlement, ReceivingStore } from "./stores/receiving-store.js";

/** The least time a claim leaves for settling after its attempts' timeout. */
const MIN_SETTLE_MS = 1_000;

/** What running the due deliveries did. */
export interface DeliveryRun {
  readonly attempted: number;
  readonly succeeded: number;
  readonly failed: number;
}

/**
 * Runs subscribers from the outbox: claims the deliveries that are due (so that no other worker
 * runs them meanwhile), runs each attempt with its timeout, and settles the batch: done, again
 * after a backoff, or failed for good once its attempts are spent.
 */
export class DeliveryRunner {
  readonly #store: ReceivingStore;
  readonly #clock: Clock;
  readonly #subscribers: ReadonlyMap<string, ResolvedSubscriber>;
  readonly #concurrency: number;
  readonly #claimMs: number;

  constructor(
    store: ReceivingStore,
    clock: Clock,
    subscribers: ReadonlyMap<string, ResolvedSubscriber>,
    concurrency: number,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#subscribers = subscribers;
    this.#concurrency = concurrency;
    // A claim lasts twice the longest attempt: its attempts end within the first half, so a live
    // worker settles within the claim; a worker that died frees its deliveries when it ends.
    const longest = Math.max(0, ...[...subscribers.values()].map((subscriber) => subscriber.timeoutMs));
    this.#claimMs = longest + Math.max(longest, MIN_SETTLE_MS);
  }

  /** Runs every delivery due now once: those attempted since `since` (this tick) wait for a later one. */
  async runDue(since: number): Promise<DeliveryRun> {
    const run = { attempted: 0, succeeded: 0, failed: 0 };
    if (this.#subscribers.size === 0) return run;
    const subscribers = [...this.#subscribers.keys()];
    for (;;) {
      const now = this.#clock.now();
      const claimed = await this.#store.claimDeliveries({
        subscribers,
        now,
        since,
        // No more than run at once, so that every attempt of a claim starts as it is claimed
        // and ends (or times out) within the claim.
        limit: this.#concurrency,
        claimedUntil: now + this.#claimMs,
      });
      const settlements = await this.#attemptAll(claimed);
      await this.#store.settleDeliveries(settlements, this.#clock.now());
      run.attempted += claimed.length;
      for (const settlement of settlements)
        if (settlement.outcome === "done") run.succeeded++;
        else if (settlement.outcome === "failed") run.failed++;
      if (claimed.length < this.#concurrency) return run;
    }
  }

  /** Runs the attempts of a claim, all at once. */
  #attemptAll(claimed: readonly ClaimedDelivery[]): Promise<DeliverySettlement[]> {
    return Promise.all(claimed.map((delivery) => this.#attempt(delivery)));
  }

  async #attempt(delivery: ClaimedDelivery): Promise<DeliverySettlement> {
    const subscriber = this.#subscribers.get(delivery.subscriber)!;
    const { deliveryId, claim } = delivery;
    const error = await this.#run(subscriber, delivery);
    if (error === undefined) return { deliveryId, claim, outcome: "done" };
    const now = this.#clock.now();
    if (delivery.attempt >= subscriber.retryPolicy.maxAttempts)
      return { deliveryId, claim, outcome: "failed", dueAt: now, error };
    const delay = backoffDelay(subscriber.retryPolicy, delivery.attempt, undefined);
    return { deliveryId, claim, outcome: "retry", dueAt: now + delay, error };
  }

  /** Runs one attempt; resolves nothing on success, else the failure's code (never its message). */
  async #run(subscriber: ResolvedSubscriber, delivery: ClaimedDelivery): Promise<string | undefined> {
    const controller = new AbortController();
    let timer: { cancel(): void } | undefined;
    const timedOut = new Promise<string>((resolve) => {
      timer = this.#clock.setTimer(
        () => {
          controller.abort(
            new QueueError(
              "Timeout",
              `subscriber ${subscriber.name} took longer than ${subscriber.timeoutMs} ms`,
            ),
          );
          resolve("timeout");
        },
        subscriber.timeoutMs,
        true,
      );
    });
    const context: DeliveryContext = {
      deliveryId: deliveryIdOf(delivery.deliveryId),
      attempt: delivery.attempt,
      eventName: delivery.event,
      eventId: delivery.eventId,
      queue: delivery.queue,
      signal: controller.signal,
    };
    const attempt = (async () => {
      try {
        await subscriber.handle(JSON.parse(delivery.payload) as never, context);
        return undefined;
      } catch (error) {
        return failureCode(error);
      }
    })();
    try {
      return await Promise.race([attempt, timedOut]);
    } finally {
      timer?.cancel();
    }
  }
}

const CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** How a failed attempt is recorded: the error's code, else its name; its message may quote the event, so it is not kept. */
function failureCode(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  if (typeof code === "string" && CODE.test(code)) return code;
  if (typeof name === "string" && CODE.test(name)) return name;
  return "error";
}

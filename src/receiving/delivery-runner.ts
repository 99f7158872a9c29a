import type { Clock } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import { backoffDelay } from "../core/retry.js";
import { deliveryIdOf } from "./item-ids.js";
import type { DeliveryContext } from "./options.js";
import type { ResolvedSubscriber } from "./receiver-config.js";
import type { ClaimedDelivery, DeliverySettlement, ReceivingStore } from "./stores/receiving-store.js";

/** Deliveries claimed (and settled) together: one claim and one settlement per this many. */
const CLAIM_BATCH = 100;
/** The least time a claim leaves for settling after an attempt's timeout. */
const MIN_SETTLE_MS = 1_000;

/** What running the due deliveries did. */
export interface DeliveryRun {
  readonly attempted: number;
  readonly succeeded: number;
  readonly failed: number;
}

/**
 * Runs subscribers from the outbox: claims the deliveries that are due (so that no other worker
 * runs them meanwhile), runs them `concurrency` at a time, each with its timeout, and settles the
 * claim: done, again after a backoff, or failed for good once its attempts are spent. An attempt
 * starts only while its claim leaves room for it to time out and be settled; the rest of a claim
 * is released, due as before, for the next tick.
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
    // Attempts may start during the claim's first `longest` ms, and each ends (or times out) within
    // `longest` more, leaving MIN_SETTLE_MS to settle. A worker that died frees its deliveries then.
    const longest = Math.max(0, ...[...subscribers.values()].map((subscriber) => subscriber.timeoutMs));
    this.#claimMs = 2 * longest + MIN_SETTLE_MS;
  }

  /** Runs every delivery due now once: those attempted since `since` (this tick) wait for a later one. */
  async runDue(since: number): Promise<DeliveryRun> {
    const run = { attempted: 0, succeeded: 0, failed: 0 };
    if (this.#subscribers.size === 0) return run;
    const subscribers = [...this.#subscribers.keys()];
    for (;;) {
      const now = this.#clock.now();
      const claimedUntil = now + this.#claimMs;
      const claimed = await this.#store.claimDeliveries({
        subscribers,
        now,
        since,
        limit: CLAIM_BATCH,
        claimedUntil,
      });
      const settlements = await this.#attemptAll(claimed, claimedUntil);
      await this.#store.settleDeliveries(settlements, this.#clock.now());
      for (const settlement of settlements) {
        if (settlement.outcome !== "released") run.attempted++;
        if (settlement.outcome === "done") run.succeeded++;
        else if (settlement.outcome === "failed") run.failed++;
      }
      if (claimed.length < CLAIM_BATCH || settlements.some((s) => s.outcome === "released")) return run;
    }
  }

  /** Runs a claim's attempts `concurrency` at a time, in claim order. */
  async #attemptAll(
    claimed: readonly ClaimedDelivery[],
    claimedUntil: number,
  ): Promise<DeliverySettlement[]> {
    const settlements: DeliverySettlement[] = new Array(claimed.length);
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const index = next++;
        const delivery = claimed[index]!;
        const subscriber = this.#subscribers.get(delivery.subscriber)!;
        const now = this.#clock.now();
        if (now + subscriber.timeoutMs + MIN_SETTLE_MS > claimedUntil) {
          settlements[index] = {
            deliveryId: delivery.deliveryId,
            claim: delivery.claim,
            outcome: "released",
          };
          continue;
        }
        const failure = this.#run(subscriber, delivery, now);
        // An attempt that ended at once is settled without waiting a turn for it.
        settlements[index] = this.#settlement(
          subscriber,
          delivery,
          failure instanceof Promise ? await failure : failure,
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, claimed.length) }, worker));
    return settlements;
  }

  /** How an attempt that ended with `failure` (undefined on success) is settled. */
  #settlement(
    subscriber: ResolvedSubscriber,
    delivery: ClaimedDelivery,
    failure: string | undefined,
  ): DeliverySettlement {
    const { deliveryId, claim } = delivery;
    if (failure === undefined) return { deliveryId, claim, outcome: "done" };
    const now = this.#clock.now();
    if (delivery.attempt >= subscriber.retryPolicy.maxAttempts)
      return { deliveryId, claim, outcome: "failed", dueAt: now, error: failure };
    const delay = backoffDelay(subscriber.retryPolicy, delivery.attempt, undefined);
    return { deliveryId, claim, outcome: "retry", dueAt: now + delay, error: failure };
  }

  /** Runs one attempt, started at `startedAt`: nothing on success, else the failure's code (never its message). */
  #run(
    subscriber: ResolvedSubscriber,
    delivery: ClaimedDelivery,
    startedAt: number,
  ): string | undefined | Promise<string | undefined> {
    // Made when the subscriber first reads its signal (or the time is up): most never do.
    let controller: AbortController | undefined;
    const context: DeliveryContext = {
      deliveryId: deliveryIdOf(delivery.deliveryId),
      attempt: delivery.attempt,
      eventName: delivery.event,
      eventId: delivery.eventId,
      queue: delivery.queue,
      get signal() {
        controller ??= new AbortController();
        return controller.signal;
      },
    };
    let answer: unknown;
    try {
      answer = subscriber.handle(JSON.parse(delivery.payload) as never, context);
      // A subscriber that answered at once cannot have run out of time: only one that answers
      // with a Promise is raced against a timer, so a synchronous one costs no timer.
      if (!isPromiseLike(answer)) return undefined;
    } catch (error) {
      return failureCode(error);
    }
    return new Promise((resolve) => {
      const timer = this.#clock.setTimer(
        () => {
          controller ??= new AbortController();
          controller.abort(
            new QueueError(
              "Timeout",
              `subscriber ${subscriber.name} took longer than ${subscriber.timeoutMs} ms`,
            ),
          );
          resolve("timeout");
        },
        Math.max(0, subscriber.timeoutMs - (this.#clock.now() - startedAt)),
        true,
      );
      Promise.resolve(answer).then(
        () => {
          timer.cancel();
          resolve(undefined);
        },
        (error: unknown) => {
          timer.cancel();
          resolve(failureCode(error));
        },
      );
    });
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

const CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** How a failed attempt is recorded: the error's code, else its name; its message may quote the event, so it is not kept. */
function failureCode(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  if (typeof code === "string" && CODE.test(code)) return code;
  if (typeof name === "string" && CODE.test(name)) return name;
  return "error";
}

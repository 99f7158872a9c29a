import { QueueError, toQueueError } from "../errors.js";
import type { ReceivedMessage } from "../message.js";
import type { BatchContext, BatchHandler } from "./consumer.js";
import { DeadLetterError } from "./dead-letter-error.js";
import { Abortable, COMPLETE, type HeldMessage, type Outcome } from "./held-message.js";
import { PollingConsumer } from "./polling-consumer.js";

/** `client.consumeBatches()`: one handler call per batch of up to `maxBatchSize`, up to `concurrency` batches at once. */
export class BatchConsumer extends PollingConsumer<BatchHandler> {
  #batches = 0;
  #batched = 0;

  get inFlight(): number {
    return this.#batched + this.waiting.length;
  }

  protected get capacity(): number {
    return this.settings.concurrency * this.settings.maxBatchSize + this.settings.prefetch;
  }

  protected dispatch(): void {
    const { concurrency, maxBatchSize, maxWaitMs } = this.settings;
    while (this.#batches < concurrency && this.waiting.length > 0 && this.running) {
      if (this.waiting.length < maxBatchSize && maxWaitMs > 0) {
        // A batch that is not full waits for more, up to maxWaitMs after its first message came.
        const left = this.waiting[0]!.receivedAtMs + maxWaitMs - this.clock.now();
        if (left > 0) {
          this.dispatchLater(left);
          return;
        }
      }
      const wait = this.limiter?.tryStart() ?? 0;
      if (wait > 0) {
        this.dispatchLater(wait);
        return;
      }
      const batch = this.waiting.splice(0, maxBatchSize);
      this.#batches++;
      this.#batched += batch.length;
      this.enter();
      void this.#handle(batch);
    }
  }

  async #handle(batch: HeldMessage[]): Promise<void> {
    try {
      await this.#run(batch);
    } catch (error) {
      this.report(toQueueError(error), batch[0]?.message);
    } finally {
      this.#batches--;
      this.#batched -= batch.length;
      for (const held of batch) this.release(held);
      this.leave();
      this.dispatch();
      this.roomFreed();
    }
  }

  async #run(batch: HeldMessage[]): Promise<void> {
    const members: HeldMessage[] = [];
    for (const held of batch)
      if ((this.settings.schema === undefined || (await this.passesSchema(held))) && this.stillLocked(held))
        members.push(held);
    if (members.length === 0) return;
    const run = new BatchRun(this, members);
    for (const held of members) {
      held.run = run;
      this.startDeadline(held);
    }
    const recorder = this.telemetry.active();
    const traced = recorder === undefined ? undefined : recorder.startProcess(this.queue, run.messages);
    try {
      await (traced === undefined
        ? this.handler(run.messages, run)
        : traced.within(() => this.handler(run.messages, run)));
      traced?.end();
    } catch (error) {
      traced?.end(error);
      if (!run.timedOut) await this.#failed(error, members);
      return;
    }
    const settle = () =>
      Promise.all(members.map((held) => (held.claim() ? this.settle(held, COMPLETE) : undefined)));
    await (traced === undefined ? settle() : traced.within(settle));
  }

  /** A batch handler threw: its unsettled messages are dead-lettered (a `DeadLetterError`) or abandoned, each with its retry delay. */
  async #failed(error: unknown, members: readonly HeldMessage[]): Promise<void> {
    const open = members.filter((held) => held.claim());
    if (error instanceof DeadLetterError) {
      const outcome: Outcome = { kind: "deadLetter", reason: error.reason, description: error.description };
      await Promise.all(open.map((held) => this.settle(held, outcome)));
      return;
    }
    this.metrics.failed++;
    await Promise.all(
      open.map((held) => {
        this.emit("failed", error, held.message);
        return this.settle(held, { kind: "abandon", delayMs: this.retryDelayOf(held) });
      }),
    );
  }

  override async timedOut(held: HeldMessage): Promise<void> {
    const run = held.run as BatchRun;
    if (run.timedOut) return;
    run.timedOut = true;
    const error = this.timeoutError();
    run.abort(error);
    await this.#failed(error, run.members);
  }

  /** Settles one message of a batch for its handler. */
  settleMember(run: BatchRun, message: ReceivedMessage, outcome: Outcome): Promise<void> {
    return this.settleForHandler(run.memberOf(message), outcome);
  }
}

/** One batch handler call: its messages, its signal, and the context it gets. */
class BatchRun extends Abortable implements BatchContext {
  readonly members: readonly HeldMessage[];
  readonly messages: readonly ReceivedMessage[];
  timedOut = false;
  readonly #consumer: BatchConsumer;
  #values: readonly unknown[] | undefined;

  constructor(consumer: BatchConsumer, members: readonly HeldMessage[]) {
    super();
    this.#consumer = consumer;
    this.members = members;
    this.messages = members.map((held) => held.message);
  }

  get values(): readonly unknown[] {
    this.#values ??= this.members.map((held) => held.value);
    return this.#values;
  }

  /** The held message of `message`; a message of another batch is a `Validation` error. */
  memberOf(message: ReceivedMessage): HeldMessage {
    const held = this.members.find((member) => member.message === message);
    if (held === undefined) throw new QueueError("Validation", "this message is not one of this batch's");
    return held;
  }

  complete(message: ReceivedMessage): Promise<void> {
    return this.#settle(message, COMPLETE);
  }

  abandon(message: ReceivedMessage, options?: { delayMs?: number }): Promise<void> {
    return this.#settle(message, { kind: "abandon", delayMs: options?.delayMs ?? 0 });
  }

  deadLetter(message: ReceivedMessage, reason: string, description?: string): Promise<void> {
    return this.#settle(message, { kind: "deadLetter", reason, description });
  }

  renewLock(message: ReceivedMessage): Promise<Date> {
    try {
      return this.memberOf(message).renewLock();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #settle(message: ReceivedMessage, outcome: Outcome): Promise<void> {
    try {
      return this.#consumer.settleMember(this, message, outcome);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

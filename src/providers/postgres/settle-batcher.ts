import { QueueError } from "../../core/errors.js";

/** One settlement waiting for its statement. */
interface PendingSettlement<Item> {
  readonly item: Item;
  /** What prefixes its `InvalidReceipt` failure. */
  readonly what: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Issues the statement for the settlements of one queue: answers, in their order, whether each
 * one's lock still held (and so it was done).
 */
export type SettleStatement<Item> = (queueId: number, items: readonly Item[]) => Promise<boolean[]>;

/**
 * Settlements (completes, abandons) asked in the same turn of the event loop, as a `Promise.all`
 * over a batch asks them, go to the database as one statement per queue: one round trip and one
 * commit instead of one each. Each still answers on its own: one whose lock ended fails its own
 * call with `InvalidReceipt`, and a failed statement fails every call it carried.
 */
export class SettleBatcher<Item> {
  readonly #statement: SettleStatement<Item>;
  readonly #pending = new Map<number, PendingSettlement<Item>[]>();
  #scheduled = false;

  constructor(statement: SettleStatement<Item>) {
    this.#statement = statement;
  }

  /** Settles `item` of queue `queueId` with the others of this turn; `what` prefixes its failure. */
  settle(queueId: number, item: Item, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      let batch = this.#pending.get(queueId);
      if (batch === undefined) {
        batch = [];
        this.#pending.set(queueId, batch);
      }
      batch.push({ item, what, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batches = [...this.#pending];
    this.#pending.clear();
    for (const [queueId, batch] of batches) void this.#run(queueId, batch);
  }

  async #run(queueId: number, batch: PendingSettlement<Item>[]): Promise<void> {
    try {
      const held = await this.#statement(
        queueId,
        batch.map((one) => one.item),
      );
      batch.forEach((one, index) => {
        if (held[index] === true) one.resolve();
        else
          one.reject(
            new QueueError(
              "InvalidReceipt",
              `${one.what}: the lock of this receipt has ended or the message was settled already`,
            ),
          );
      });
    } catch (error) {
      for (const one of batch)
        one.reject(
          QueueError.is(error, "InvalidReceipt")
            ? new QueueError("InvalidReceipt", `${one.what}: ${error.message}`)
            : error,
        );
    }
  }
}

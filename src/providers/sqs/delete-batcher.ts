import { MAX_BATCH_ENTRIES } from "../../aws/json-protocol/sqs-validation.js";
import type { OperationContext } from "../../core/provider.js";
import { entryError, missingEntryError, settleError } from "./batch-results.js";
import type { SqsHttp } from "./sqs-http.js";

interface PendingDelete {
  readonly handle: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

interface PendingBatch {
  readonly url: string;
  readonly context: OperationContext;
  readonly entries: PendingDelete[];
}

/**
 * Deletes asked for in the same moment (`Promise.all` over a batch's completes) travel as one
 * `DeleteMessageBatch` of up to ten, each settling with its own entry's outcome; a lone delete
 * is a plain `DeleteMessage`.
 */
export class DeleteBatcher {
  readonly #http: SqsHttp;
  readonly #pending = new Map<string, PendingBatch>();

  constructor(http: SqsHttp) {
    this.#http = http;
  }

  /** Deletes the message a receipt handle locks; `InvalidReceipt` when the lock is gone. */
  delete(url: string, handle: string, context: OperationContext): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let batch = this.#pending.get(url);
      if (batch === undefined) {
        const created: PendingBatch = { url, context, entries: [] };
        this.#pending.set(url, created);
        queueMicrotask(() => this.#flush(created));
        batch = created;
      }
      batch.entries.push({ handle, resolve, reject });
      if (batch.entries.length === MAX_BATCH_ENTRIES) this.#flush(batch);
    });
  }

  #flush(batch: PendingBatch): void {
    if (this.#pending.get(batch.url) !== batch) return;
    this.#pending.delete(batch.url);
    if (batch.entries.length === 1) {
      const only = batch.entries[0]!;
      this.#http
        .call("DeleteMessage", { QueueUrl: batch.url, ReceiptHandle: only.handle }, batch.context)
        .then(
          () => only.resolve(),
          (error: unknown) => only.reject(settleError(error)),
        );
      return;
    }
    this.#http
      .call(
        "DeleteMessageBatch",
        {
          QueueUrl: batch.url,
          Entries: batch.entries.map((entry, index) => ({ Id: String(index), ReceiptHandle: entry.handle })),
        },
        batch.context,
      )
      .then(
        ({ Successful = [], Failed = [] }) => {
          const done = new Set<string>();
          for (const success of Successful) {
            done.add(success.Id);
            batch.entries[Number(success.Id)]?.resolve();
          }
          for (const failure of Failed) {
            done.add(failure.Id);
            batch.entries[Number(failure.Id)]?.reject(settleError(entryError(failure)));
          }
          batch.entries.forEach((entry, index) => {
            if (!done.has(String(index)))
              entry.reject(missingEntryError("DeleteMessageBatch", String(index)));
          });
        },
        (error: unknown) => {
          const settled = settleError(error);
          for (const entry of batch.entries) entry.reject(settled);
        },
      );
  }
}

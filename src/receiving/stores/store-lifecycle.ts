import { QueueError } from "../../core/errors.js";

/**
 * A store's opening, done once on first use and tried again after a failure (a server down,
 * a file locked), and its closing, after which it opens no more.
 */
export class StoreLifecycle {
  readonly #description: string;
  readonly #open: () => Promise<void>;
  #opening: Promise<void> | undefined;
  #closed = false;

  /** `open` makes the store usable; `description` names it in errors. */
  constructor(description: string, open: () => Promise<void>) {
    this.#description = description;
    this.#open = open;
  }

  /** Resolves once the store is open; rejects with `ClientClosed` once it has been closed. */
  open(): Promise<void> {
    if (this.#closed) return Promise.reject(this.closedError());
    this.#opening ??= this.#open().catch((error: unknown) => {
      this.#opening = undefined;
      throw error;
    });
    return this.#opening;
  }

  /** Marks the store closed; resolves once an opening under way has ended. True the first time only. */
  async close(): Promise<boolean> {
    if (this.#closed) return false;
    this.#closed = true;
    await this.#opening?.catch(() => undefined);
    return true;
  }

  /** The error of a call on a closed store. */
  closedError(): QueueError {
    return new QueueError("ClientClosed", `${this.#description} is closed`);
  }
}

/**
 * What to do with the tables of a store whose schema version table says `found`: nothing when
 * current, create or migrate them when older or absent; a newer version is refused.
 */
export function schemaAction(
  description: string,
  found: number | undefined,
  known: number,
): "current" | "create" | "migrate" {
  if (found === undefined) return "create";
  if (found > known)
    throw new QueueError(
      "Configuration",
      `${description} has tables of schema version ${found}; this queue-runtime knows ${known}: upgrade it`,
    );
  return found === known ? "current" : "migrate";
}

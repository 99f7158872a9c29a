import { QueueError } from "../../core/errors.js";

/** The store cannot do it now (locked, disconnected, timed out): the message stays on its queue. */
export function storeUnavailable(description: string, error: unknown, providerCode?: string): QueueError {
  return new QueueError("ConnectionFailed", `${description} cannot take it now: ${messageOf(error)}`, {
    cause: error,
    isTransient: true,
    ...(providerCode === undefined ? {} : { providerCode }),
  });
}

/** The store refuses the statement, as it would every time (a constraint, a value it cannot hold). */
export function storeRefused(description: string, error: unknown, providerCode?: string): QueueError {
  return new QueueError("Provider", `${description} refused it: ${messageOf(error)}`, {
    cause: error,
    isTransient: false,
    ...(providerCode === undefined ? {} : { providerCode }),
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

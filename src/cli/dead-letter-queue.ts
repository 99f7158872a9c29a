import type { QueueAdmin } from "../core/admin.js";
import { QueueError } from "../core/errors.js";

/**
 * The dead-letter queue `name` means: its own when it has one, else `name` itself. A dead-letter
 * queue has none of its own: the providers say so with `Unsupported`, and Service Bus, whose
 * dead-letter queues are paths below their queue, with `Validation`.
 */
export async function deadLetterQueueNamed(admin: QueueAdmin, name: string): Promise<string> {
  try {
    return await admin.deadLetterQueueOf(name);
  } catch (error) {
    if (QueueError.is(error, "Unsupported") || QueueError.is(error, "Validation")) return name;
    throw error;
  }
}

import { createClient } from "../../src/index.js";
import type { MakeModelClient } from "../../src/testing/model/index.js";
import type { ModelOptions } from "../../src/testing/model/queue-model.js";
import { prefixPerNamespace, RABBITMQ_URL } from "../providers/rabbitmq/broker.js";

/**
 * Where the rabbitmq provider's semantics differ from the engine's: the broker keeps its own time
 * (no run moves it); RabbitMQ has no deduplication; a plain receive of a FIFO queue takes the
 * messages of one free session, held as a session until each is settled (the session is a queue of
 * its own with an exclusive lock queue); a dead-letter queue another queue names cannot be deleted
 * (the broker would drop what it dead-letters there); a quorum queue hands a returned message out
 * before the others or after them; the next free session is the one whose first message came
 * first (AMQP cannot look at a session's next message without taking it).
 */
export const RABBITMQ_SEMANTICS: ModelOptions = {
  time: "broker",
  deduplicationWindowMs: 0,
  fifoReceive: "session",
  deadLetterQueueDeletion: "refused",
  standardOrder: "unspecified",
  nextSession: "unspecified",
};

/** Clients of the rabbitmq provider with one queue prefix per run, shared by the run's two clients, deleted when the next run begins. */
export function rabbitMqPerRun(file: string): MakeModelClient {
  const prefixOf = prefixPerNamespace(file);
  return ({ clock, namespace }) =>
    createClient({
      provider: { type: "rabbitmq", url: RABBITMQ_URL, queuePrefix: prefixOf(namespace), clock },
      createQueues: false,
    });
}

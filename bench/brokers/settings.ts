/** Messages each loop sends, receives and settles at once in the "batches" shape (issue 28). */
export const BATCH = 10;
/** Concurrent loops of the "batches" shape; "one at a time" runs a single loop of single messages. */
export const LOOPS = 4;

/** The two workload shapes every contender runs. */
export type Shape = "batches" | "single";

/** Messages per timed run, by shape: a run takes a few seconds at most at the rates measured here. */
export const MESSAGES: Readonly<Record<Shape, number>> = { batches: 8_000, single: 1_000 };

/** Alternating rounds of each contest, each contender in a fresh process per round (its best kept). */
export const ROUNDS = 3;
/** Runs of a contender in its process: the first warms its JIT and its connection up, the best is kept. */
export const RUNS_PER_PROCESS = 2;

/** How long a receive may wait once everything is sent (JetStream's pull requests take 1 s at the least). */
export const WAIT_MS = 1_000;

/** The local RabbitMQ 3.10 (default vhost). */
export const RABBITMQ_URL = "amqp://guest:guest@127.0.0.1:5672/%2F";
/** The local NATS 2.9 with JetStream. */
export const NATS_SERVERS = "nats://127.0.0.1:4222";

/** Unacknowledged deliveries the bare amqplib consumer may hold (`basic.qos`): room for every loop's batch and more. */
export const AMQP_PREFETCH = 100;

/**
 * How the bare JetStream client acknowledges, by shape: `ack` publishes the ack and goes on;
 * `ackAck` waits for the server to confirm it. One at a time uses `ackAck`: our `completeMessage`
 * resolving says the message is gone for good, which only a confirmed ack tells; switch it to
 * `ack` if our nats provider's `completeMessage` turns out not to wait for the confirmation.
 */
export const JETSTREAM_ACK: Readonly<Record<Shape, "ack" | "ackAck">> = { batches: "ack", single: "ackAck" };

let names = 0;

/** A queue or stream name no other run, process or earlier benchmark uses: `who`, this process, the time and a counter. */
export function uniqueName(who: string): string {
  return `${who}-${process.pid}-${Date.now().toString(36)}-${++names}`;
}

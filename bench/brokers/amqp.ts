import { type ConfirmChannel, type ConsumeMessage, connect } from "amqplib";
import { BODY } from "../consumer/settings.js";
import type { Measurement } from "../lib.js";
import { Inbox } from "./inbox.js";
import { AMQP_PREFETCH, RABBITMQ_URL, type Shape, uniqueName, WAIT_MS } from "./settings.js";
import { SHAPES, type Side, timedSide } from "./side.js";

/**
 * Bare amqplib on a new quorum queue: each loop publishes on a `ConfirmChannel` of its own
 * (persistent messages, then `waitForConfirms`, so it waits for its own batch only); one consumer
 * channel with prefetch {@link AMQP_PREFETCH} and manual acks feeds an {@link Inbox} the loops take
 * their batches from, each delivery acked on its own. Closing deletes the queue.
 */
async function amqpSide(shape: Shape): Promise<Side> {
  // Without TCP_NODELAY a lone publish waits out Nagle and the broker's delayed ACK: 24 msg/s one at a time.
  const connection = await connect(RABBITMQ_URL, { noDelay: true });
  const queue = uniqueName("brokers-bare");
  const publishers: ConfirmChannel[] = [];
  for (let loop = 0; loop < SHAPES[shape].loops; loop++)
    publishers.push(await connection.createConfirmChannel());
  const consumer = await connection.createChannel();
  await consumer.assertQueue(queue, { durable: true, arguments: { "x-queue-type": "quorum" } });
  await consumer.prefetch(AMQP_PREFETCH);
  const inbox = new Inbox<ConsumeMessage>();
  await consumer.consume(queue, (message) => message && inbox.push(message), { noAck: false });
  const content = Buffer.from(BODY);
  const batch = SHAPES[shape].batch;
  return {
    work: {
      send(loop) {
        const channel = publishers[loop]!;
        for (let i = 0; i < batch; i++) channel.sendToQueue(queue, content, { persistent: true });
        return channel.waitForConfirms();
      },
      async receiveAndSettle(_loop, allSent) {
        const messages = await inbox.take(batch, allSent ? WAIT_MS : 0);
        for (const message of messages) consumer.ack(message);
        return messages.length;
      },
    },
    async close() {
      try {
        await consumer.deleteQueue(queue);
      } finally {
        await connection.close();
      }
    },
  };
}

/** Bare amqplib's send + receive + ack of a run of `shape`. */
export function bareAmqp(shape: Shape): Promise<Measurement> {
  return timedSide(
    `amqplib 0.10.8 bare: quorum queue, confirms, prefetch ${AMQP_PREFETCH}, manual ack`,
    shape,
    () => amqpSide(shape),
  );
}

import {
  AckPolicy,
  type Consumer,
  type JsMsg,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
} from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { BODY } from "../consumer/settings.js";
import type { Measurement } from "../lib.js";
import { JETSTREAM_ACK, NATS_SERVERS, type Shape, uniqueName, WAIT_MS } from "./settings.js";
import { SHAPES, type Side, timedSide } from "./side.js";

/** The pull requests of a run: `claim` asks for up to `max` of the messages no request has asked for yet. */
function claims(total: number) {
  let claimed = 0;
  let settled = 0;
  let allSettled: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    allSettled = resolve;
  });
  return {
    claim: (max: number): number => {
      const count = Math.min(max, total - claimed);
      claimed += count;
      return count;
    },
    /** Counts `count` messages acked of the `asked` claimed; gives back what did not come. */
    settle: (asked: number, count: number): void => {
      claimed -= asked - count;
      settled += count;
      if (settled >= total) allSettled();
    },
    done,
  };
}

/** Receives up to `count` messages of `consumer`: one `next()` for one, else one `fetch`. */
async function pull(consumer: Consumer, count: number): Promise<JsMsg[]> {
  if (count === 1) {
    const message = await consumer.next({ expires: WAIT_MS });
    return message === null ? [] : [message];
  }
  const messages: JsMsg[] = [];
  for await (const message of await consumer.fetch({ max_messages: count, expires: WAIT_MS }))
    messages.push(message);
  return messages;
}

/**
 * The bare JetStream client on a new work-queue stream with a durable pull consumer (explicit
 * acks): each loop publishes its batch at once and awaits every PubAck, then pulls. A pull request
 * waits until it has all it asked for (at least 1 s), so a loop asks only for messages no other
 * request has claimed (every request is then filled as soon as the messages are stored) and waits
 * for the run's end when none are left. Acks as {@link JETSTREAM_ACK} says. Closing deletes the stream.
 */
async function jetStreamSide(shape: Shape, total: number): Promise<Side> {
  const connection = await connect({ servers: NATS_SERVERS });
  const stream = uniqueName("brokers-bare");
  const subject = `${stream}.messages`;
  const manager = await jetstreamManager(connection);
  await manager.streams.add({ name: stream, subjects: [subject], retention: RetentionPolicy.Workqueue });
  await manager.consumers.add(stream, { durable_name: "bench", ack_policy: AckPolicy.Explicit });
  const js = jetstream(connection);
  const consumer = await js.consumers.get(stream, "bench");
  const body = new TextEncoder().encode(BODY);
  const { batch } = SHAPES[shape];
  const confirmed = JETSTREAM_ACK[shape] === "ackAck";
  const pulls = claims(total);
  return {
    work: {
      send: () => Promise.all(Array.from({ length: batch }, () => js.publish(subject, body))),
      async receiveAndSettle() {
        const asked = pulls.claim(batch);
        if (asked === 0) {
          await pulls.done;
          return 0;
        }
        const messages = await pull(consumer, asked);
        if (confirmed) await Promise.all(messages.map((message) => message.ackAck()));
        else for (const message of messages) message.ack();
        pulls.settle(asked, messages.length);
        return messages.length;
      },
    },
    async close() {
      try {
        await manager.streams.delete(stream);
      } finally {
        await connection.close();
      }
    },
  };
}

/** The bare JetStream client's publish + pull + ack of a run of `shape`. */
export function bareJetStream(shape: Shape): Promise<Measurement> {
  const ack = JETSTREAM_ACK[shape] === "ackAck" ? "ackAck()" : "ack()";
  return timedSide(
    `@nats-io/jetstream 3.3.1 bare: work-queue stream, PubAcks, pull consumer, ${ack}`,
    shape,
    (total) => jetStreamSide(shape, total),
  );
}

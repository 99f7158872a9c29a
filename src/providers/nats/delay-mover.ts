import type { Msg } from "@nats-io/transport-node";
import type { Clock } from "../../core/clock.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { ackConfirmed, signalDelivery } from "./acks.js";
import type { NatsLink } from "./connection.js";
import { type MessageMeta, readMeta } from "./message-mapping.js";
import { publish } from "./outbox.js";
import type { Pulls } from "./pulls.js";
import type { QueueCatalog } from "./queue-catalog.js";

/** How many delayed messages one look moves at most. */
const MOVE_BATCH = 100;

/** What the delay mover needs from the provider. */
export interface DelayMoverDeps {
  readonly link: NatsLink;
  readonly prefix: string;
  readonly catalog: QueueCatalog;
  readonly pulls: Pulls;
  readonly clock: Clock;
}

/**
 * Delays without scheduled messages (JetStream 2.9 has none): a delayed message is published to
 * its queue's delay subject with the instant its delay ends, where no receiver reads. The
 * queue's `delay` consumer hands each to a client that looks: one whose delay ended is published
 * to its ready (or session) subject, PubAck awaited, then acked; one still early is nak'ed with
 * the time left, so JetStream hands it over again exactly then. Receives look before each pull
 * (and waiting ones every {@link LOOK_AGAIN_MS} at least), so a message joins its queue when its
 * delay ends; its delivery count starts at its first real delivery.
 */
export class DelayMover {
  readonly #deps: DelayMoverDeps;

  constructor(deps: DelayMoverDeps) {
    this.#deps = deps;
  }

  /** Moves the delayed messages of `record` whose delay has ended. */
  async moveDue(record: QueueRecord): Promise<void> {
    const names = this.#deps.catalog.names(record.name);
    const found = await this.#deps.pulls.pull(names.stream, names.delayConsumer, MOVE_BATCH);
    await this.#handle(record, found);
  }

  async #handle(record: QueueRecord, messages: readonly Msg[]): Promise<void> {
    for (const message of messages) await this.handleOne(record, message);
  }

  /** Moves one message the delay consumer delivered, or gives it back until its delay ends. */
  async handleOne(record: QueueRecord, message: Msg): Promise<void> {
    const { link, clock, prefix } = this.#deps;
    const reply = message.reply;
    if (reply === undefined) return;
    const now = clock.now();
    const meta = readMeta(message.headers, `${record.name}:delayed`, now);
    const left = (meta.visibleAt ?? 0) - now;
    if (left > 0) {
      await signalDelivery(link, reply, "nak", `waiting out a delay on ${record.name}`, left);
      return;
    }
    const { visibleAt: _ended, ...ready } = meta;
    await publish(
      link,
      prefix,
      record,
      ready as MessageMeta,
      message.data,
      `ending a delay on ${record.name}`,
    );
    await ackConfirmed(link, reply, `ending a delay on ${record.name}`);
  }
}

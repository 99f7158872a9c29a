import type { Msg } from "@nats-io/transport-node";
import type { Clock } from "../../core/clock.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { ackConfirmed, signalDelivery } from "./acks.js";
import type { NatsLink } from "./connection.js";
import { DelayLooks } from "./delay-looks.js";
import { type MessageMeta, readMeta } from "./message-mapping.js";
import { publish } from "./outbox.js";
import type { Pulls } from "./pulls.js";
import type { QueueCatalog } from "./queue-catalog.js";
import { LOOK_AGAIN_MS } from "./work-queue.js";

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
 * when {@link DelayLooks} says a delay may have ended, so a message joins its queue when its
 * delay ends; its delivery count starts at its first real delivery.
 */
export class DelayMover {
  readonly #deps: DelayMoverDeps;
  readonly #looks: DelayLooks;

  constructor(deps: DelayMoverDeps) {
    this.#deps = deps;
    this.#looks = new DelayLooks(deps.link, deps.prefix, deps.clock, LOOK_AGAIN_MS);
  }

  /** Whether a delay on `queue` may have ended, so that {@link moveDue} would look. */
  mayBeDue(queue: string): boolean {
    return this.#looks.due(this.#deps.catalog.names(queue).delayed);
  }

  /** Moves the delayed messages of `record` whose delay has ended. */
  async moveDue(record: QueueRecord): Promise<void> {
    const names = this.#deps.catalog.names(record.name);
    if (!this.#looks.due(names.delayed)) return;
    this.#looks.looking(names.delayed);
    try {
      const found = await this.#deps.pulls.pull(names.stream, names.delayConsumer, MOVE_BATCH);
      for (const message of found) await this.#handleOne(record, message);
      if (found.length >= MOVE_BATCH) this.#looks.again(names.delayed);
    } catch (error) {
      this.#looks.again(names.delayed);
      throw error;
    }
  }

  /** Moves one message the delay consumer delivered, or gives it back until its delay ends. */
  async #handleOne(record: QueueRecord, message: Msg): Promise<void> {
    const { link, clock, prefix } = this.#deps;
    const reply = message.reply;
    if (reply === undefined) return;
    const now = clock.now();
    const meta = readMeta(message.headers, `${record.name}:delayed`, now);
    const left = (meta.visibleAt ?? 0) - now;
    if (left > 0) {
      this.#looks.endsAt(message.subject, now + left);
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

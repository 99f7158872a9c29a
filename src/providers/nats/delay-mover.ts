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
/** The longest pull the watch keeps on the delay consumer: a receive that stops waiting leaves none longer. */
const WATCH_PULL_MS = 1_000;

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
 * the time left, so JetStream hands it over again exactly then. Receives look before they pull
 * and keep a pull on the delay consumer while they wait, so a message joins its queue when its
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
    const found = await this.#deps.pulls.pull(names.stream, names.delayConsumer, MOVE_BATCH, 0);
    await this.#handle(record, found);
  }

  /** Moves messages of `record` as their delays end, for up to `waitMs` or until `signal` aborts. */
  async watch(record: QueueRecord, waitMs: number, signal: AbortSignal): Promise<void> {
    const names = this.#deps.catalog.names(record.name);
    const deadline = this.#deps.clock.now() + waitMs;
    try {
      while (!signal.aborted) {
        const left = deadline - this.#deps.clock.now();
        if (left <= 0) return;
        const found = await this.#deps.pulls.pull(
          names.stream,
          names.delayConsumer,
          1,
          Math.min(left, WATCH_PULL_MS),
          signal,
        );
        await this.#handle(record, found);
      }
    } catch {
      // The receive this watch serves reports the connection's failures itself.
    }
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

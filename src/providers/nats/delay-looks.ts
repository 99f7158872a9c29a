import type { Msg } from "@nats-io/transport-node";
import type { Clock } from "../../core/clock.js";
import type { NatsLink } from "./connection.js";
import { readMeta } from "./message-mapping.js";
import { allDelayed } from "./names.js";

/**
 * When a queue's delay consumer is worth a look, so that receives do not ask it on every call: a
 * core subscription sees every delayed message published under the prefix (from any process)
 * with the instant its delay ends, and a look that gives one back early tells that instant too.
 * What neither tells (a mover that died holding a message, a batch left for the next look, a
 * message stored just after a look asked, publishes missed while reconnecting) waits at most
 * `lookAgainMs` after the last look: the longest a waiting receive went between looks anyway.
 */
export class DelayLooks {
  readonly #link: NatsLink;
  readonly #clock: Clock;
  readonly #lookAgainMs: number;
  /** The next look's time, by delayed subject; none yet means at once. */
  readonly #next = new Map<string, number>();
  #reconnects: number;

  constructor(link: NatsLink, prefix: string, clock: Clock, lookAgainMs: number) {
    this.#link = link;
    this.#clock = clock;
    this.#lookAgainMs = lookAgainMs;
    this.#reconnects = link.reconnects;
    link.nc.subscribe(allDelayed(prefix), { callback: (_error, message) => this.#published(message) });
  }

  #published(message: Msg): void {
    const meta = readMeta(message.headers, "", 0);
    this.endsAt(message.subject, meta.visibleAt ?? 0);
  }

  /** Whether the delay consumer of `subject` should be looked at now. */
  due(subject: string): boolean {
    if (this.#link.reconnects !== this.#reconnects) {
      this.#reconnects = this.#link.reconnects;
      this.#next.clear();
    }
    return (this.#next.get(subject) ?? 0) <= this.#clock.now();
  }

  /** A look at `subject` is starting: what it does not settle is looked at again soon. */
  looking(subject: string): void {
    this.#next.set(subject, this.#clock.now() + this.#lookAgainMs);
  }

  /** A delay on `subject` ends at `at`: the next look is then at the latest. */
  endsAt(subject: string, at: number): void {
    const next = this.#next.get(subject);
    if (next !== undefined && at < next) this.#next.set(subject, at);
  }

  /** Looks at `subject` as soon as asked (a look brought a full batch: more may wait). */
  again(subject: string): void {
    this.#next.delete(subject);
  }
}

import { createInbox, type Msg, type Subscription } from "@nats-io/transport-node";
import type { NatsLink } from "./connection.js";

/** What a delivered JetStream message's ack subject tells: where it is and how often it was delivered. */
export interface AckInfo {
  readonly stream: string;
  readonly consumer: string;
  readonly deliveryCount: number;
  readonly streamSequence: number;
}

/**
 * Reads an ack subject: `$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>`,
 * or the newer form with a domain and an account hash before the stream.
 */
export function parseAckSubject(subject: string): AckInfo | undefined {
  const parts = subject.split(".");
  if (parts[0] !== "$JS" || parts[1] !== "ACK") return undefined;
  const at = parts.length === 9 ? 2 : parts.length >= 12 ? 4 : -1;
  if (at < 0) return undefined;
  const deliveryCount = Number(parts[at + 2]);
  const streamSequence = Number(parts[at + 3]);
  if (!Number.isSafeInteger(deliveryCount) || !Number.isSafeInteger(streamSequence)) return undefined;
  return { stream: parts[at]!, consumer: parts[at + 1]!, deliveryCount, streamSequence };
}

/** Slack on top of a pull's expiry for the server's end-of-request status to arrive. */
const PULL_SLACK_MS = 2_000;

/**
 * Pull requests on shared durable consumers: each is one `CONSUMER.MSG.NEXT` with a reply inbox
 * of its own (JetStream delivers a pulled message under its own subject, so only the
 * subscription tells which request it answers), ended by its batch, or by the status the server
 * sends when it has no more (404) or the request expired (408). A request the caller stops
 * waiting for is unsubscribed at once, and JetStream passes over a pull whose reply subject has
 * no interest; a message already on its way then goes to `stray`, which gives it back, so
 * nothing is left locked that nobody holds.
 */
export class Pulls {
  readonly #link: NatsLink;
  readonly #inbox = createInbox();
  readonly #open = new Set<Subscription>();
  readonly #stray: (message: Msg) => void;
  #next = 0;

  constructor(link: NatsLink, stray: (message: Msg) => void) {
    this.#link = link;
    this.#stray = stray;
  }

  /**
   * Asks `consumer` of `stream` for up to `batch` messages: at once what there is (`waitMs` 0),
   * or waiting up to `waitMs` for them; resolves what came (an abort ends it early with what came).
   */
  pull(
    stream: string,
    consumer: string,
    batch: number,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<Msg[]> {
    const reply = `${this.#inbox}.${++this.#next}`;
    return new Promise<Msg[]>((resolve) => {
      const messages: Msg[] = [];
      let waiting = true;
      const release = () => {
        clearTimeout(expiry);
        this.#open.delete(sub);
        sub.unsubscribe();
      };
      const finish = () => {
        if (!waiting) return;
        waiting = false;
        signal?.removeEventListener("abort", finish);
        resolve(messages);
        // Unsubscribed, the request gets nothing more: JetStream passes over a pull whose reply has no interest.
        release();
      };
      const sub = this.#link.nc.subscribe(reply, {
        callback: (_error, message) => {
          const isMessage = message.reply?.startsWith("$JS.ACK.") === true;
          if (!isMessage) {
            // 100 is a heartbeat; anything else (404 no messages, 408 expired, 409 gone) ends the request.
            if ((message.headers?.code ?? 0) === 100) return;
            finish();
            return;
          }
          if (!waiting) {
            this.#stray(message);
            return;
          }
          messages.push(message);
          if (messages.length >= batch) finish();
        },
      });
      this.#open.add(sub);
      // The server's side ends by then at the latest: the request is forgotten.
      const expiry = setTimeout(finish, waitMs + PULL_SLACK_MS);
      expiry.unref();
      signal?.addEventListener("abort", finish, { once: true });
      const request =
        waitMs <= 0 ? { batch, no_wait: true } : { batch, expires: Math.round(waitMs * 1_000_000) };
      this.#link.nc.publish(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${consumer}`, JSON.stringify(request), {
        reply,
      });
      if (signal?.aborted) finish();
    });
  }

  /** Stops listening to every request under way. */
  close(): void {
    for (const sub of this.#open) sub.unsubscribe();
    this.#open.clear();
  }
}

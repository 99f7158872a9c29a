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

/** How long a no-wait pull may go unanswered before it is taken as empty (the server answers at once). */
const PULL_ANSWER_MS = 2_000;

/** A reply subject of pull requests and its subscription, kept for the next request once one ended with its answer whole. */
interface Inbox {
  readonly subject: string;
  readonly sub: Subscription;
  /** Takes what comes for the request it serves now, if any. */
  take: ((message: Msg) => void) | undefined;
}

/**
 * No-wait pull requests on shared durable consumers: each is one `CONSUMER.MSG.NEXT` with a reply
 * inbox of its own while it lasts (JetStream delivers a pulled message under its own subject, so
 * only the subscription tells which request it answers), ended by its batch or by the status the
 * server sends when it has no more (404, or 408 after some). Nothing comes to an inbox after
 * that, so the next request takes it over rather than subscribing afresh; one whose request went
 * unanswered is dropped. Receives wait between pulls rather than in them: NATS 2.9 passes over a
 * waiting pull whose reply lost interest, but counts that as a delivery undone, and a message
 * abandoned meanwhile then shows the delivery count it had before. A message that arrives when
 * no request waits for it goes to `stray`, which gives it back.
 */
export class Pulls {
  readonly #link: NatsLink;
  readonly #inbox = createInbox();
  readonly #all = new Set<Inbox>();
  readonly #idle: Inbox[] = [];
  readonly #stray: (message: Msg) => void;
  #next = 0;

  constructor(link: NatsLink, stray: (message: Msg) => void) {
    this.#link = link;
    this.#stray = stray;
  }

  /** Asks `consumer` of `stream` for up to `batch` messages there are now; resolves what came. */
  pull(stream: string, consumer: string, batch: number): Promise<Msg[]> {
    const inbox = this.#idle.pop() ?? this.#open();
    return new Promise<Msg[]>((resolve) => {
      const messages: Msg[] = [];
      let waiting = true;
      const finish = (whole: boolean) => {
        if (!waiting) return;
        waiting = false;
        clearTimeout(unanswered);
        inbox.take = undefined;
        if (whole) this.#idle.push(inbox);
        else this.#drop(inbox);
        resolve(messages);
      };
      inbox.take = (message) => {
        if (message.reply?.startsWith("$JS.ACK.") !== true) {
          // 100 is a heartbeat; anything else (404 no messages, 408, 409 gone) ends the request.
          if ((message.headers?.code ?? 0) !== 100) finish(true);
          return;
        }
        messages.push(message);
        if (messages.length >= batch) finish(true);
      };
      const unanswered = setTimeout(() => finish(false), PULL_ANSWER_MS);
      unanswered.unref();
      // Published at once, to go out in one write with a new inbox's subscription.
      this.#link.nc.publish(
        `$JS.API.CONSUMER.MSG.NEXT.${stream}.${consumer}`,
        JSON.stringify({ batch, no_wait: true }),
        { reply: inbox.subject },
      );
    });
  }

  /** Gives back a message pulled for a receive that will not take it. */
  giveBack(message: Msg): void {
    this.#stray(message);
  }

  #open(): Inbox {
    const subject = `${this.#inbox}.${++this.#next}`;
    const inbox: Inbox = {
      subject,
      take: undefined,
      sub: this.#link.nc.subscribe(subject, {
        callback: (_error, message) => {
          if (inbox.take !== undefined) inbox.take(message);
          else if (message.reply?.startsWith("$JS.ACK.") === true) this.#stray(message);
        },
      }),
    };
    this.#all.add(inbox);
    return inbox;
  }

  #drop(inbox: Inbox): void {
    inbox.sub.unsubscribe();
    this.#all.delete(inbox);
  }

  /** Stops listening to every request under way and every inbox kept. */
  close(): void {
    for (const inbox of this.#all) inbox.sub.unsubscribe();
    this.#all.clear();
    this.#idle.length = 0;
  }
}

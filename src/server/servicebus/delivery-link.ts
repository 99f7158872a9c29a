import type rhea from "rhea";
import { QueueError } from "../../core/errors.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import type { LockReference, MessageRecord } from "../../engine/records.js";
import type { SessionLock } from "../../engine/sessions.js";
import type { WriteBatcher } from "../../engine/write-batcher.js";
import { OK, type RequestMetrics } from "../../metrics/request-metrics.js";
import { type AmqpError, amqpErrorOf, CONDITIONS } from "./amqp-errors.js";
import type { DispositionWriter } from "./disposition-writer.js";
import { deliveryTag } from "./lock-tokens.js";
import { propertiesToModify, toAmqpMessage } from "./message-mapping.js";
import { acceptedOutcome, deadLetterRequest, type RemoteOutcome, rejectedOutcome } from "./outcomes.js";

/** The most messages one engine receive hands a link. */
const MAX_BATCH = 100;
/** How long one wait for messages lasts before the loop looks again (a link's credit may stand for hours). */
const WAIT_MS = 60_000;

/** How a receiver settles: it completes each message it got (peek-lock), or the server deletes them as sent. */
export type SettleMode = "peekLock" | "receiveAndDelete";

/** A message locked for a link, ready to go out. */
interface Outgoing {
  readonly message: ReturnType<typeof toAmqpMessage>;
  readonly lock: LockReference;
}

/** What a delivery link serves from: a queue, or one session of it. */
export interface DeliveryLinkOptions {
  readonly sender: rhea.Sender;
  readonly engine: QueueEngine;
  /** The engine's name of the queue (or dead-letter queue). */
  readonly queue: string;
  readonly settleMode: SettleMode;
  /** For a session receiver: the session it holds. */
  readonly session?: SessionLock;
  /** Writes settlements for the link's AMQP session. */
  readonly dispositions: DispositionWriter;
  /** Group-commits the engine writes of settlements, so that one commit serves a burst of them. */
  readonly writes: WriteBatcher;
  readonly onError: (error: unknown) => void;
  /** Where settlements are counted, when anything counts them. */
  readonly requests?: RequestMetrics;
}

/**
 * A client's receiving link: hands it locked messages while it has credit, answers its drains at
 * once (the SDK closes a link whose drain goes unanswered), and settles its dispositions. A
 * message locked for the link that can no longer be sent is given back uncounted.
 */
export class DeliveryLink {
  readonly #options: DeliveryLinkOptions;
  #closed = false;
  /** Aborted (and replaced) to end the wait under way; one serves every wait until then. */
  #waits = new AbortController();
  /** The lock of each delivery sent and not yet settled: a disposition names its delivery, not a token. */
  readonly #locks = new WeakMap<rhea.Delivery, LockReference>();
  /** What this link sent that rhea has not written yet. */
  #unwritten: rhea.Delivery[] = [];
  #changed: (() => void) | undefined;

  constructor(options: DeliveryLinkOptions) {
    this.#options = options;
    void this.#run();
  }

  /** The link has credit again (or more of it). */
  wake(): void {
    this.#changed?.();
  }

  /**
   * The client asked to drain: the remaining credit is given back at once, in rhea's event
   * handler, because rhea writes the drained flow only while it handles input; a message the
   * wait under way still brings is given back to the queue.
   */
  drain(): void {
    this.#options.sender.set_drained(true);
    this.#endWait();
  }

  /** The link or its connection went: waits end; messages it holds stay locked until their locks end, as on Azure. */
  close(): void {
    this.#closed = true;
    this.#endWait();
    this.#changed?.();
  }

  /**
   * Applies a client's disposition of a peek-lock delivery and settles it once committed, with
   * `message-lock-lost` when its lock is gone.
   */
  settle(delivery: rhea.Delivery, outcome: "accepted" | "released" | "modified" | "rejected"): void {
    const { engine, dispositions, writes, onError } = this.#options;
    const state = (delivery as unknown as { remote_state?: RemoteOutcome }).remote_state ?? {};
    const counted = this.#options.requests?.start("servicebus_amqp", settlementOf(outcome, state));
    const lock = this.#locks.get(delivery);
    this.#locks.delete(delivery);
    if (lock === undefined) {
      const lost = lockLost();
      dispositions.settle(delivery, rejectedOutcome(lost), false);
      counted?.(lost.condition);
      return;
    }
    writes
      .run(() => {
        if (outcome === "accepted") engine.complete(lock);
        else if (outcome === "released") engine.abandon(lock);
        else if (outcome === "modified") {
          // The SDK sends abandon's and defer's properties to modify as the outcome's message annotations.
          const edit = propertiesToModify(state.message_annotations);
          if (state.undeliverable_here === true) engine.defer(lock, edit);
          else engine.abandon(lock, 0, edit);
        } else {
          const request = deadLetterRequest(state);
          engine.deadLetter(
            lock,
            request.reason,
            request.description,
            propertiesToModify(request.propertiesToModify),
          );
        }
      })
      .then(
        () => {
          dispositions.settle(delivery, acceptedOutcome(), true);
          counted?.(OK);
        },
        (error: unknown) => {
          if (!QueueError.is(error)) onError(error);
          const refusal = amqpErrorOf(error);
          dispositions.settle(delivery, rejectedOutcome(refusal), false);
          counted?.(refusal.condition);
        },
      );
  }

  async #run(): Promise<void> {
    const { sender, onError } = this.#options;
    while (!this.#closed) {
      // A link whose session or connection ended gets no close event of its own here.
      if (!sender.is_open()) {
        this.close();
        return;
      }
      const room = this.#room();
      if (room <= 0 || !sender.sendable()) {
        await new Promise<void>((resolve) => {
          this.#changed = resolve;
        });
        this.#changed = undefined;
        continue;
      }
      let batch: Outgoing[];
      try {
        batch = await this.#receive(Math.min(room, MAX_BATCH), this.#waits.signal);
      } catch (error) {
        onError(error);
        this.#fail(amqpErrorOf(error));
        return;
      }
      let left = this.#room();
      for (const [index, item] of batch.entries()) {
        if (this.#closed || left <= 0 || !sender.is_open()) {
          this.#giveBack(item.lock);
          continue;
        }
        try {
          this.#unwritten.push(this.#send(item));
          left--;
        } catch (error) {
          // rhea refused the transfer (its session buffer full, say): what is left goes back.
          onError(error);
          for (const rest of batch.slice(index)) this.#giveBack(rest.lock);
          this.#fail(amqpErrorOf(error));
          return;
        }
      }
      // rhea writes transfers on the next tick, and only then lowers the link's credit.
      if (batch.length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * The credit left for new messages: the link's credit less what was sent and rhea has not
   * written yet (it holds transfers while the session's window is shut, its credit unchanged).
   */
  #room(): number {
    const sender = this.#options.sender;
    const written = (sender.session as unknown as { outgoing: { next_pending_delivery: number } }).outgoing
      .next_pending_delivery;
    this.#unwritten = this.#unwritten.filter((delivery) => delivery.id >= written);
    return creditOf(sender) - this.#unwritten.length;
  }

  #receive(max: number, signal: AbortSignal): Promise<Outgoing[]> {
    const { engine, queue, session } = this.#options;
    const deliver = (record: MessageRecord): Outgoing => ({
      // Built at once: the stored record may change as soon as the receive returns.
      message: toAmqpMessage(record, { lockedUntil: record.visibleAt }),
      lock: { queue, seq: record.seq, lockToken: record.lockToken! },
    });
    return session === undefined
      ? engine.receive(queue, max, deliver, { waitMs: WAIT_MS, signal })
      : engine.receiveFromSession(session, max, deliver, { waitMs: WAIT_MS, signal });
  }

  #send(item: Outgoing): rhea.Delivery {
    const { sender, engine, settleMode } = this.#options;
    const { queue, seq, lockToken } = item.lock;
    if (settleMode === "receiveAndDelete") engine.complete(item.lock);
    const delivery = sender.send(item.message as never, deliveryTag(queue, seq, lockToken));
    if (settleMode === "peekLock") this.#locks.set(delivery, item.lock);
    return delivery;
  }

  /** Ends the wait under way, if any; the next wait gets a fresh signal. */
  #endWait(): void {
    this.#waits.abort();
    this.#waits = new AbortController();
  }

  #giveBack(lock: LockReference): void {
    try {
      this.#options.engine.giveBack(lock);
    } catch (error) {
      this.#options.onError(error);
    }
  }

  #fail(error: AmqpError): void {
    this.#closed = true;
    if (this.#options.sender.is_open()) this.#options.sender.close(error);
  }
}

/** The credit a link has left (rhea keeps it, its typings do not say so). */
function creditOf(sender: rhea.Sender): number {
  return (sender as unknown as { credit: number }).credit;
}

/** What a client's disposition asks, as the request counts name it. */
function settlementOf(
  outcome: "accepted" | "released" | "modified" | "rejected",
  state: RemoteOutcome,
): string {
  if (outcome === "accepted") return "complete";
  if (outcome === "rejected") return "dead_letter";
  return outcome === "modified" && state.undeliverable_here === true ? "defer" : "abandon";
}

function lockLost(): AmqpError {
  return {
    condition: CONDITIONS.messageLockLost,
    description:
      "The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue.",
  };
}

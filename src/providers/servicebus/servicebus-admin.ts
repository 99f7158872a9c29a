import type {
  QueueProperties,
  ServiceBusAdministrationClient,
  ServiceBusClient,
  ServiceBusMessage,
  ServiceBusReceivedMessage,
  ServiceBusReceiver,
  ServiceBusSessionReceiver,
} from "@azure/service-bus";
import Long from "long";
import { parseIsoDuration } from "../../azure/iso-duration.js";
import { withOwnSignal } from "../../core/abort-watch.js";
import type { PeekedMessage, QueueAdmin, QueueInfo, QueueOptions, QueueStats } from "../../core/admin.js";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { parseSubscriptionPath } from "../../core/topics.js";
import { validateQueueName } from "../../core/validation.js";
import { DEAD_LETTER_ATTRIBUTES } from "../../rules/dead-letters.js";
import {
  belongsToTopic,
  subscriptionQueueToCreate,
  subscriptionQueueToDelete,
} from "../../rules/topic-records.js";
import { fromSdkError, type Redact } from "./errors.js";
import type { Links } from "./links.js";
import { DEAD_LETTER_SUFFIX, deadLetterSource, toPeekedMessage } from "./message-mapping.js";
import { createOptions, UNLIMITED_DELIVERIES } from "./queue-settings.js";
import { noSessionFree } from "./sessions.js";
import { toSubscriptionInfo } from "./topic-mapping.js";

/** Messages read per round trip when purging or redriving. */
const PAGE = 100;
/** How long a purge or redrive waits for a page before taking the queue for empty. */
const PAGE_WAIT_MS = 500;

/** The SDK clients and receivers the admin works through, and what it shares with the provider. */
export interface ServiceBusAdminDeps {
  readonly admin: ServiceBusAdministrationClient;
  readonly client: ServiceBusClient;
  /** The provider's receivers: a peek goes through one, as the SDK sends it over the queue's `$management` link. */
  readonly links: Links;
  readonly clock: Clock;
  readonly redact: Redact;
  /** Aborted when the provider closes. */
  readonly signal: AbortSignal;
}

/** Queue administration through the management (ATOM) API and, for purge, redrive and peek, the queue itself. */
export class ServiceBusAdmin implements QueueAdmin {
  readonly #admin: ServiceBusAdministrationClient;
  readonly #client: ServiceBusClient;
  readonly #links: Links;
  readonly #clock: Clock;
  readonly #redact: Redact;
  readonly #signal: AbortSignal;

  constructor(deps: ServiceBusAdminDeps) {
    this.#admin = deps.admin;
    this.#client = deps.client;
    this.#links = deps.links;
    this.#clock = deps.clock;
    this.#redact = deps.redact;
    this.#signal = deps.signal;
  }

  async createQueue(name: string, options: QueueOptions = {}): Promise<QueueInfo> {
    validateQueueName(name);
    const refused = subscriptionQueueToCreate(name);
    if (refused !== undefined) throw refused;
    const settings = createOptions(options);
    try {
      const created = await this.#call((abortSignal) =>
        this.#admin.createQueue(name, { ...settings, abortSignal }),
      );
      return toQueueInfo(created, new Date());
    } catch (error) {
      throw this.#failed(error, `createQueue ${name}`);
    }
  }

  async deleteQueue(name: string): Promise<void> {
    validateQueueName(name);
    // The management API takes `<topic>/Subscriptions/<name>` for the subscription itself.
    if (belongsToTopic(name)) throw subscriptionQueueToDelete(name);
    try {
      await this.#call((abortSignal) => this.#admin.deleteQueue(name, { abortSignal }));
    } catch (error) {
      throw this.#failed(error, `deleteQueue ${name}`);
    }
  }

  async listQueues(prefix = ""): Promise<string[]> {
    const names: string[] = [];
    try {
      await this.#call(async (abortSignal) => {
        for await (const queue of this.#admin.listQueues({ abortSignal }))
          names.push(queue.name, `${queue.name}${DEAD_LETTER_SUFFIX}`);
      });
    } catch (error) {
      throw this.#failed(error, "listQueues");
    }
    return names.filter((name) => name.startsWith(prefix)).sort();
  }

  async getQueue(name: string): Promise<QueueInfo | null> {
    validateQueueName(name);
    const source = deadLetterSource(name);
    const subscription = parseSubscriptionPath(source ?? name);
    if (subscription !== undefined) return this.#getSubscriptionQueue(name, source, subscription);
    try {
      const [properties, runtime] = await this.#call((abortSignal) =>
        Promise.all([
          this.#admin.getQueue(source ?? name, { abortSignal }),
          this.#admin.getQueueRuntimeProperties(source ?? name, { abortSignal }),
        ]),
      );
      const info = toQueueInfo(properties, runtime.createdAt);
      return source === undefined ? info : { ...info, name, fifo: false, deadLetterQueue: null };
    } catch (error) {
      const failure = this.#failed(error, `getQueue ${name}`);
      if (failure.code === "QueueNotFound") return null;
      throw failure;
    }
  }

  /** A subscription's path as a queue (or its dead-letter queue), from the subscription's settings. */
  async #getSubscriptionQueue(
    name: string,
    source: string | undefined,
    { topic, subscription }: { topic: string; subscription: string },
  ): Promise<QueueInfo | null> {
    try {
      const [properties, runtime] = await this.#call((abortSignal) =>
        Promise.all([
          this.#admin.getSubscription(topic, subscription, { abortSignal }),
          this.#admin.getSubscriptionRuntimeProperties(topic, subscription, { abortSignal }),
        ]),
      );
      const {
        topic: _topic,
        subscription: _name,
        forwardTo: _forward,
        ...info
      } = toSubscriptionInfo(properties, runtime.createdAt);
      return source === undefined ? info : { ...info, name, fifo: false, deadLetterQueue: null };
    } catch (error) {
      const failure = this.#failed(error, `getQueue ${name}`);
      if (failure.code === "QueueNotFound") return null;
      throw failure;
    }
  }

  /**
   * Counts from the queue's runtime properties. Service Bus counts a locked message as active
   * and has no count of locked ones, so `inFlight` is always 0 here (the capability
   * `lockedCount` says so); a dead-letter queue's counts are its source's dead letters.
   */
  async getQueueStats(name: string): Promise<QueueStats> {
    validateQueueName(name);
    const source = deadLetterSource(name);
    try {
      const runtime = await this.#call((abortSignal) => this.#runtime(source ?? name, abortSignal));
      if (source !== undefined)
        return { active: runtime.deadLetterMessageCount, inFlight: 0, delayed: 0, deadLettered: 0 };
      return {
        active: runtime.activeMessageCount,
        inFlight: 0,
        delayed: runtime.scheduledMessageCount,
        deadLettered: runtime.deadLetterMessageCount,
      };
    } catch (error) {
      throw this.#failed(error, `getQueueStats ${name}`);
    }
  }

  /**
   * A queue's counts, or a subscription's: Service Bus gives a subscription no count of scheduled
   * messages, so those are what its total holds beyond its active messages and dead letters.
   */
  async #runtime(
    name: string,
    abortSignal: AbortSignal,
  ): Promise<{ activeMessageCount: number; scheduledMessageCount: number; deadLetterMessageCount: number }> {
    const subscription = parseSubscriptionPath(name);
    if (subscription === undefined) return this.#admin.getQueueRuntimeProperties(name, { abortSignal });
    const runtime = await this.#admin.getSubscriptionRuntimeProperties(
      subscription.topic,
      subscription.subscription,
      { abortSignal },
    );
    const scheduled = runtime.totalMessageCount - runtime.activeMessageCount - runtime.deadLetterMessageCount;
    return { ...runtime, scheduledMessageCount: Math.max(0, scheduled) };
  }

  /**
   * Receives and deletes until the queue answers empty; messages locked by receivers stay until
   * their locks end. A queue that requires sessions is drained a free session at a time: sessions
   * others hold keep their messages.
   */
  async purgeQueue(name: string): Promise<number> {
    validateQueueName(name);
    const source = deadLetterSource(name);
    if (source === undefined && (await this.getQueue(name))?.fifo === true) return this.#purgeSessions(name);
    const receiver =
      source === undefined
        ? this.#client.createReceiver(name, { receiveMode: "receiveAndDelete" })
        : this.#client.createReceiver(source, {
            receiveMode: "receiveAndDelete",
            subQueueType: "deadLetter",
          });
    return this.#drain(receiver, name);
  }

  /** Drains each session of `queue` that is free, until none is. */
  async #purgeSessions(queue: string): Promise<number> {
    let purged = 0;
    for (;;) {
      let receiver: ServiceBusSessionReceiver;
      try {
        receiver = await this.#call((abortSignal) =>
          this.#client.acceptNextSession(queue, { receiveMode: "receiveAndDelete", abortSignal }),
        );
      } catch (error) {
        if (noSessionFree(error)) return purged;
        throw this.#failed(error, `purgeQueue ${queue}`);
      }
      purged += await this.#drain(receiver, queue);
    }
  }

  /** Receives (and so deletes) through `receiver` until a page comes back empty, then closes it; resolves how many. */
  async #drain(receiver: ServiceBusReceiver, queue: string): Promise<number> {
    let purged = 0;
    try {
      return await this.#call(async (abortSignal) => {
        for (;;) {
          const page = await receiver.receiveMessages(PAGE, { maxWaitTimeInMs: PAGE_WAIT_MS, abortSignal });
          purged += page.length;
          if (page.length === 0) return purged;
        }
      });
    } catch (error) {
      throw this.#failed(error, `purgeQueue ${queue}`);
    } finally {
      await receiver.close().catch(() => undefined);
    }
  }

  async deadLetterQueueOf(name: string): Promise<string> {
    validateQueueName(name);
    if (deadLetterSource(name) !== undefined)
      throw new QueueError("Validation", `${name} is a dead-letter queue; it has none of its own`);
    if ((await this.getQueue(name)) === null)
      throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    return `${name}${DEAD_LETTER_SUFFIX}`;
  }

  /**
   * Moves dead letters back: each is sent again to the source queue (or `target`) as a new
   * message with its body, id and properties but not its dead-letter reason, and removed from
   * the dead-letter queue once the send succeeded, so a failure midway copies at most a page twice.
   * A target that does not exist fails before any dead letter is touched; one that requires
   * sessions gives a message without one the session named after the dead-letter queue.
   */
  async redrive(deadLetterQueue: string, target?: string): Promise<number> {
    validateQueueName(deadLetterQueue);
    const source = deadLetterSource(deadLetterQueue);
    if (source === undefined)
      throw new QueueError(
        "Validation",
        `${deadLetterQueue} is not a dead-letter queue (<queue>${DEAD_LETTER_SUFFIX})`,
      );
    const destination = target ?? source;
    validateQueueName(destination);
    if (parseSubscriptionPath(destination) !== undefined)
      throw new QueueError(
        "Unsupported",
        `Service Bus cannot send to subscription ${destination}: only its topic takes messages, and every subscription whose rules match would get them again`,
      );
    const to = await this.getQueue(destination);
    if (to === null) throw new QueueError("QueueNotFound", `queue ${destination} does not exist`);
    const sessionOf = (message: ServiceBusReceivedMessage) =>
      message.sessionId ?? (to.fifo ? deadLetterQueue : undefined);
    const receiver = this.#client.createReceiver(source, {
      subQueueType: "deadLetter",
      skipParsingBodyAsJson: true,
      skipConvertingDate: true,
    });
    const sender = this.#client.createSender(destination);
    let moved = 0;
    try {
      return await this.#call(async (abortSignal) => {
        for (;;) {
          const page = await receiver.receiveMessages(PAGE, { maxWaitTimeInMs: PAGE_WAIT_MS, abortSignal });
          if (page.length === 0) return moved;
          await sender.sendMessages(
            page.map((message) => redriven(message, sessionOf(message))),
            { abortSignal },
          );
          await Promise.all(page.map((message) => receiver.completeMessage(message)));
          moved += page.length;
        }
      });
    } catch (error) {
      throw this.#failed(error, `redrive ${deadLetterQueue}`);
    } finally {
      await Promise.allSettled([receiver.close(), sender.close()]);
    }
  }

  /**
   * Service Bus's own peek, asked again after the last message it showed until `max` are shown or
   * a page comes back empty (the service may answer fewer than asked). It shows messages whose
   * time to live ended until the service removes them: those are left out here.
   */
  async peekMessages(queue: string, max: number, fromSequence?: string): Promise<PeekedMessage[]> {
    validateQueueName(queue);
    const receiver = this.#links.take(queue);
    const peeked: PeekedMessage[] = [];
    // Sequence numbers are 64-bit: text in and out, a Long between, never a JavaScript number.
    let from = Long.fromString(fromSequence ?? "0");
    try {
      await this.#call(async (abortSignal) => {
        while (peeked.length < max) {
          const page = await receiver.peekMessages(max - peeked.length, {
            fromSequenceNumber: from,
            abortSignal,
          });
          const last = page.at(-1)?.sequenceNumber;
          if (last === undefined) break;
          const now = this.#clock.now();
          for (const message of page)
            if (message.expiresAtUtc === undefined || message.expiresAtUtc.getTime() > now)
              peeked.push(toPeekedMessage(message, queue, now));
          from = last.add(1);
        }
      });
    } catch (error) {
      this.#links.giveBack(queue, receiver, true);
      throw this.#failed(error, `peekMessages ${queue}`);
    }
    this.#links.giveBack(queue, receiver, false);
    return peeked;
  }

  /** Runs one SDK call with a signal of its own that the provider's closing aborts (the SDK leaves a listener on each signal it is given). */
  #call<T>(run: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    return withOwnSignal(this.#signal, run);
  }

  #failed(error: unknown, what: string): QueueError {
    return fromSdkError(error, what, this.#redact);
  }
}

/** A queue's settings in queue-runtime's terms. */
function toQueueInfo(queue: QueueProperties, createdAt: Date): QueueInfo {
  const duration = (text: string) => parseIsoDuration(text, { code: "Provider" });
  return {
    name: queue.name,
    fifo: queue.requiresSession,
    lockDurationMs: duration(queue.lockDuration) ?? 0,
    maxDeliveryCount: queue.maxDeliveryCount >= UNLIMITED_DELIVERIES ? null : queue.maxDeliveryCount,
    deadLetterQueue: `${queue.name}${DEAD_LETTER_SUFFIX}`,
    defaultTimeToLiveMs: duration(queue.defaultMessageTimeToLive),
    deadLetterOnExpiration: queue.deadLetteringOnMessageExpiration,
    deduplicationWindowMs: queue.requiresDuplicateDetection
      ? (duration(queue.duplicateDetectionHistoryTimeWindow) ?? 0)
      : 0,
    defaultDelayMs: 0,
    createdAt,
  };
}

/** A dead letter as a new message for its source queue: what it carried, less the dead-letter reason, in `sessionId`. */
function redriven(message: ServiceBusReceivedMessage, sessionId: string | undefined): ServiceBusMessage {
  const properties = { ...(message.applicationProperties ?? {}) };
  delete properties[DEAD_LETTER_ATTRIBUTES.reason];
  delete properties[DEAD_LETTER_ATTRIBUTES.description];
  const copy: ServiceBusMessage = { body: message.body, applicationProperties: properties };
  if (message.messageId !== undefined) copy.messageId = message.messageId;
  if (message.correlationId !== undefined) copy.correlationId = message.correlationId;
  if (message.contentType !== undefined) copy.contentType = message.contentType;
  if (sessionId !== undefined) copy.sessionId = sessionId;
  if (message.subject !== undefined) copy.subject = message.subject;
  return copy;
}

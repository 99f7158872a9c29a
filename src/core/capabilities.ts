import type { ProviderConfigs } from "./config.js";
import type { FilterKind } from "./topics.js";

/** The name of a provider: a shipped one's, or any other for a provider of your own. */
export type ProviderType = keyof ProviderConfigs | (string & {});

/** How a provider supports sessions: natively, emulated on another feature, or not at all. */
export type SessionSupport = "native" | "emulated" | "none";

/** What a provider can do; the contract suite skips a case only by these flags. */
export interface Capabilities {
  readonly sessions: SessionSupport;
  readonly batching: boolean;
  /** The most messages one batch call to the provider carries; larger batches are split. */
  readonly maxBatchSize: number;
  /** The largest message body the provider accepts, in bytes. */
  readonly maxMessageBytes: number;
  /** Whether dead-lettering is the provider's own or done by queue-runtime on top of it. */
  readonly deadLetter: "native" | "emulated";
  readonly delayedDelivery: boolean;
  /** The longest delay a message may be sent with. */
  readonly maxDelayMs: number;
  readonly sessionState: boolean;
  readonly lockRenewal: boolean;
  /** Whether messages sent one after another come out in that order on a standard queue. */
  readonly ordering: "fifo" | "best-effort";
  /** Whether a message's time to live is honoured. */
  readonly timeToLive: boolean;
  /** Whether `admin.redrive` can move dead letters back. */
  readonly redrive: boolean;
  /** Whether locked messages are told apart from active ones: counted as `inFlight` by `admin.getQueueStats`, peeked as `inFlight`. */
  readonly lockedCount: boolean;
  /** Whether `admin.peekMessages` can show messages without receiving them. */
  readonly peek: boolean;
  /** Whether the provider has topics and subscriptions (`publishMessage`, the topic calls of `admin`). */
  readonly topics: boolean;
  /** The kinds of subscription filter the provider evaluates; a rule of another kind is `Unsupported`. */
  readonly filters: readonly FilterKind[];
  /**
   * Whether `admin.redrive` moves a subscription's dead letters back into the subscription
   * (Service Bus sends only to a topic: there it is `Unsupported`).
   */
  readonly subscriptionRedrive: boolean;
  /**
   * Whether queues and topics name themselves apart, so a queue and a topic may share a name
   * (`"apart"`), or share one namespace of names (`"one"`: Service Bus, `QueueAlreadyExists`).
   */
  readonly entityNames: "apart" | "one";
}

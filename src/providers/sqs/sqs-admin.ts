import type { PeekedMessage, QueueAdmin, QueueInfo, QueueOptions, QueueStats } from "../../core/admin.js";
import { QueueError } from "../../core/errors.js";
import { peekUnsupported } from "../../core/peeked-message.js";
import type { OperationContext } from "../../core/provider.js";
import { deadLetterQueueName } from "../../rules/dead-letters.js";
import { redrive } from "./dead-letters.js";
import { checkSqsQueueName, isFifoName, parseRedrivePolicy, type SqsQueue } from "./queue-urls.js";
import type { SqsContext } from "./sqs-context.js";
import { visibilitySeconds } from "./visibility.js";

/** SQS's fixed deduplication window of FIFO queues. */
export const SQS_DEDUPLICATION_WINDOW_MS = 300_000;
/** Deliveries before a message is dead-lettered when `maxDeliveryCount` is not given (the engine's default). */
export const DEFAULT_MAX_DELIVERY_COUNT = 10;
/** SQS's largest `maxReceiveCount`, used for `maxDeliveryCount: null` (SQS has no "never"). */
export const SQS_MAX_RECEIVE_COUNT = 1_000;
/** Retention of the dead-letter queues createQueue makes: SQS's longest, 14 days. */
export const DEAD_LETTER_RETENTION_SECONDS = 1_209_600;
const MIN_RETENTION_SECONDS = 60;

const STATS_ATTRIBUTES = [
  "ApproximateNumberOfMessages",
  "ApproximateNumberOfMessagesNotVisible",
  "ApproximateNumberOfMessagesDelayed",
];

function count(attributes: Record<string, string>, name: string): number {
  return Number(attributes[name] ?? 0) || 0;
}

function totalOf(attributes: Record<string, string>): number {
  return STATS_ATTRIBUTES.reduce((sum, name) => sum + count(attributes, name), 0);
}

/** A queue's options as SQS attributes: lock duration, delay and retention in whole seconds. */
function attributesOf(options: QueueOptions, fifo: boolean): Record<string, string> {
  if (options.deadLetterOnExpiration === true)
    throw new QueueError("Unsupported", "SQS deletes expired messages; it cannot dead-letter them");
  const window = options.deduplicationWindowMs;
  if (window !== undefined && window !== (fifo ? SQS_DEDUPLICATION_WINDOW_MS : 0))
    throw new QueueError(
      "Unsupported",
      "SQS deduplicates FIFO queues over a fixed 300 000 ms and standard queues not at all",
    );
  if (options.defaultTimeToLiveMs === null)
    throw new QueueError(
      "Unsupported",
      "SQS keeps a message at most 14 days: give defaultTimeToLiveMs a number",
    );
  const attributes: Record<string, string> = {
    VisibilityTimeout: String(visibilitySeconds(options.lockDurationMs ?? 30_000)),
  };
  if (fifo) attributes.FifoQueue = "true";
  if (options.defaultDelayMs !== undefined && options.defaultDelayMs > 0)
    attributes.DelaySeconds = String(Math.ceil(options.defaultDelayMs / 1000));
  if (options.defaultTimeToLiveMs !== undefined)
    attributes.MessageRetentionPeriod = String(
      Math.max(MIN_RETENTION_SECONDS, Math.ceil(options.defaultTimeToLiveMs / 1000)),
    );
  return attributes;
}

function maxReceiveCountOf(options: QueueOptions): number {
  const given = options.maxDeliveryCount;
  if (given === null) return SQS_MAX_RECEIVE_COUNT;
  const value = given ?? DEFAULT_MAX_DELIVERY_COUNT;
  if (!Number.isInteger(value) || value < 1 || value > SQS_MAX_RECEIVE_COUNT)
    throw new QueueError(
      "Validation",
      `maxDeliveryCount must be a whole number from 1 to ${SQS_MAX_RECEIVE_COUNT} on SQS`,
    );
  return value;
}

/** A queue's options from its SQS attributes. */
export function queueInfoOf(name: string, attributes: Record<string, string>): QueueInfo {
  const fifo = attributes.FifoQueue === "true";
  const redrive = parseRedrivePolicy(attributes.RedrivePolicy);
  return {
    name,
    fifo,
    lockDurationMs: count(attributes, "VisibilityTimeout") * 1000,
    maxDeliveryCount: redrive?.maxReceiveCount ?? null,
    deadLetterQueue: redrive?.deadLetterQueue ?? null,
    defaultTimeToLiveMs: count(attributes, "MessageRetentionPeriod") * 1000,
    deadLetterOnExpiration: false,
    deduplicationWindowMs: fifo ? SQS_DEDUPLICATION_WINDOW_MS : 0,
    defaultDelayMs: count(attributes, "DelaySeconds") * 1000,
    createdAt: new Date(count(attributes, "CreatedTimestamp") * 1000),
  };
}

/**
 * Queue administration on SQS. `createQueue` maps the options to queue attributes and, unless
 * `deadLetterQueue` is `null`, points a `RedrivePolicy` at a dead-letter queue (`<name>-dlq` by
 * default, as the engine names it), creating that queue when it does not exist.
 */
export class SqsAdmin implements QueueAdmin {
  readonly #sqs: SqsContext;
  readonly #context: () => OperationContext;

  /** `context` gives each call its signal and timeout (admin calls have none of their own). */
  constructor(sqs: SqsContext, context: () => OperationContext) {
    this.#sqs = sqs;
    this.#context = context;
  }

  async createQueue(name: string, options: QueueOptions = {}): Promise<QueueInfo> {
    checkSqsQueueName(name);
    if (
      options.fifo !== undefined &&
      options.requiresSession !== undefined &&
      options.fifo !== options.requiresSession
    )
      throw new QueueError("Validation", "fifo and requiresSession mean the same thing and must agree");
    const fifo = options.fifo ?? options.requiresSession ?? isFifoName(name);
    if (fifo !== isFifoName(name))
      throw new QueueError(
        "Validation",
        `SQS FIFO queues, and only they, have names ending in .fifo: ${name}`,
      );
    const attributes = attributesOf(options, fifo);
    const deadLetterQueue =
      options.deadLetterQueue === undefined ? deadLetterQueueName(name) : options.deadLetterQueue;
    const maxReceiveCount = maxReceiveCountOf(options);
    const context = this.#context();
    if (await this.#exists(name, context))
      throw new QueueError("QueueAlreadyExists", `queue ${name} already exists`);
    if (deadLetterQueue !== null) {
      if (deadLetterQueue === name)
        throw new QueueError("Validation", "a queue cannot be its own dead-letter queue");
      const arn = await this.#deadLetterQueueArn(
        deadLetterQueue,
        fifo,
        attributes.VisibilityTimeout!,
        context,
      );
      attributes.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount });
    }
    const { QueueUrl } = await this.#sqs.http.call(
      "CreateQueue",
      { QueueName: name, Attributes: attributes },
      context,
    );
    if (QueueUrl !== undefined) this.#sqs.directory.remember({ name, url: QueueUrl, fifo });
    return queueInfoOf(name, {
      ...attributes,
      CreatedTimestamp: String(Math.floor(this.#sqs.clock.now() / 1000)),
      MessageRetentionPeriod: attributes.MessageRetentionPeriod ?? "345600",
    });
  }

  async deleteQueue(name: string): Promise<void> {
    const context = this.#context();
    const queue = await this.#sqs.directory.resolve(name, context);
    this.#sqs.directory.forget(name);
    await this.#sqs.http.call("DeleteQueue", { QueueUrl: queue.url }, context);
  }

  async listQueues(prefix?: string): Promise<string[]> {
    const context = this.#context();
    const names: string[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.#sqs.http.call(
        "ListQueues",
        {
          MaxResults: 1_000,
          ...(prefix === undefined || prefix === "" ? {} : { QueueNamePrefix: prefix }),
          ...(nextToken === undefined ? {} : { NextToken: nextToken }),
        },
        context,
      );
      for (const url of page.QueueUrls ?? []) names.push(url.slice(url.lastIndexOf("/") + 1));
      nextToken = page.NextToken;
    } while (nextToken !== undefined);
    return names.sort();
  }

  async getQueue(name: string): Promise<QueueInfo | null> {
    const context = this.#context();
    const queue = await this.#find(name, context);
    if (queue === undefined) return null;
    const { Attributes = {} } = await this.#sqs.http.call(
      "GetQueueAttributes",
      { QueueUrl: queue.url, AttributeNames: ["All"] },
      context,
    );
    return queueInfoOf(name, Attributes);
  }

  async getQueueStats(name: string): Promise<QueueStats> {
    const context = this.#context();
    const queue = await this.#sqs.directory.resolve(name, context);
    const { Attributes = {} } = await this.#sqs.http.call(
      "GetQueueAttributes",
      { QueueUrl: queue.url, AttributeNames: [...STATS_ATTRIBUTES, "RedrivePolicy"] },
      context,
    );
    const redrive = parseRedrivePolicy(Attributes.RedrivePolicy);
    let deadLettered = 0;
    if (redrive !== null) {
      const target = await this.#find(redrive.deadLetterQueue, context);
      if (target !== undefined) {
        const dead = await this.#sqs.http.call(
          "GetQueueAttributes",
          { QueueUrl: target.url, AttributeNames: STATS_ATTRIBUTES },
          context,
        );
        deadLettered = totalOf(dead.Attributes ?? {});
      }
    }
    return {
      active: count(Attributes, "ApproximateNumberOfMessages"),
      inFlight: count(Attributes, "ApproximateNumberOfMessagesNotVisible"),
      delayed: count(Attributes, "ApproximateNumberOfMessagesDelayed"),
      deadLettered,
    };
  }

  /** Purges the queue; resolves SQS's approximate count of its messages just before. */
  async purgeQueue(name: string): Promise<number> {
    const context = this.#context();
    const queue = await this.#sqs.directory.resolve(name, context);
    const { Attributes = {} } = await this.#sqs.http.call(
      "GetQueueAttributes",
      { QueueUrl: queue.url, AttributeNames: STATS_ATTRIBUTES },
      context,
    );
    await this.#sqs.http.call("PurgeQueue", { QueueUrl: queue.url }, context);
    return totalOf(Attributes);
  }

  async deadLetterQueueOf(name: string): Promise<string> {
    const context = this.#context();
    const queue = await this.#sqs.directory.resolve(name, context);
    const settings = await this.#sqs.directory.settings(queue, context);
    if (settings.redrive === null)
      throw new QueueError("Unsupported", `queue ${name} has no dead-letter queue (no RedrivePolicy)`);
    return settings.redrive.deadLetterQueue;
  }

  redrive(deadLetterQueue: string, target?: string): Promise<number> {
    return redrive(this.#sqs, deadLetterQueue, target, this.#context());
  }

  async #find(name: string, context: OperationContext): Promise<SqsQueue | undefined> {
    try {
      return await this.#sqs.directory.resolve(name, context);
    } catch (error) {
      if (QueueError.is(error, "QueueNotFound") || QueueError.is(error, "Validation")) return undefined;
      throw error;
    }
  }

  async #exists(name: string, context: OperationContext): Promise<boolean> {
    this.#sqs.directory.forget(name);
    return (await this.#find(name, context)) !== undefined;
  }

  /** The ARN of a dead-letter queue, created like its source (same kind and lock, longest retention) when missing. */
  async #deadLetterQueueArn(
    name: string,
    fifo: boolean,
    visibility: string,
    context: OperationContext,
  ): Promise<string> {
    checkSqsQueueName(name);
    let queue = await this.#find(name, context);
    if (queue === undefined) {
      const attributes: Record<string, string> = {
        VisibilityTimeout: visibility,
        MessageRetentionPeriod: String(DEAD_LETTER_RETENTION_SECONDS),
      };
      if (fifo) attributes.FifoQueue = "true";
      const { QueueUrl } = await this.#sqs.http.call(
        "CreateQueue",
        { QueueName: name, Attributes: attributes },
        context,
      );
      if (QueueUrl === undefined)
        throw new QueueError("Provider", `CreateQueue answered no URL for ${name}`, { isTransient: false });
      queue = { name, url: QueueUrl, fifo };
      this.#sqs.directory.remember(queue);
    }
    const { Attributes = {} } = await this.#sqs.http.call(
      "GetQueueAttributes",
      { QueueUrl: queue.url, AttributeNames: ["QueueArn"] },
      context,
    );
    if (Attributes.QueueArn === undefined)
      throw new QueueError("Provider", `GetQueueAttributes answered no QueueArn for ${name}`, {
        isTransient: false,
      });
    return Attributes.QueueArn;
  }

  /** SQS has no peek: the only way to see a message is to receive it. */
  async peekMessages(): Promise<PeekedMessage[]> {
    throw peekUnsupported("SQS");
  }
}

import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { OperationContext } from "../../core/provider.js";
import type { SqsHttp } from "./sqs-http.js";

/** A queue as requests address it. */
export interface SqsQueue {
  readonly name: string;
  readonly url: string;
  /** FIFO queues are the ones whose name ends in `.fifo`: SQS allows no other. */
  readonly fifo: boolean;
}

/** Where a queue's dead letters go, from its `RedrivePolicy`. */
export interface RedriveTarget {
  readonly deadLetterQueue: string;
  readonly deadLetterArn: string;
  readonly maxReceiveCount: number;
}

/** The settings of a queue the provider acts on. */
export interface SqsQueueSettings {
  /** The queue's `VisibilityTimeout`: how long a receive locks a message. */
  readonly lockDurationMs: number;
  readonly redrive: RedriveTarget | null;
}

/** How long a queue's settings are trusted before they are read again (they may change elsewhere). */
export const SETTINGS_TTL_MS = 60_000;

const FIFO_SUFFIX = ".fifo";
const SQS_QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;

/** True when `name` ends in `.fifo`. */
export function isFifoName(name: string): boolean {
  return name.endsWith(FIFO_SUFFIX);
}

/** Fails with `Validation` unless SQS accepts `name`: up to 80 of `[A-Za-z0-9_-]`, FIFO ones ending in `.fifo`. */
export function checkSqsQueueName(name: string): void {
  const base = isFifoName(name) ? name.slice(0, -FIFO_SUFFIX.length) : name;
  if (name.length > 80 || !SQS_QUEUE_NAME.test(base))
    throw new QueueError(
      "Validation",
      `SQS queue names are up to 80 letters, digits, '-' and '_' (FIFO ones ending in .fifo): ${JSON.stringify(name)} is not one`,
    );
}

/** The queue a queue URL names: its last path segment. */
export function queueNameOfUrl(url: string): string {
  return url.slice(url.lastIndexOf("/") + 1);
}

/** The queue an ARN names: its last field. */
export function queueNameOfArn(arn: string): string {
  return arn.slice(arn.lastIndexOf(":") + 1);
}

/** Reads a `RedrivePolicy` attribute; `null` when there is none or it cannot be read. */
export function parseRedrivePolicy(value: string | undefined): RedriveTarget | null {
  if (value === undefined || value === "") return null;
  try {
    const policy = JSON.parse(value) as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
    const maxReceiveCount = Number(policy.maxReceiveCount);
    if (typeof policy.deadLetterTargetArn !== "string" || !Number.isInteger(maxReceiveCount)) return null;
    return {
      deadLetterQueue: queueNameOfArn(policy.deadLetterTargetArn),
      deadLetterArn: policy.deadLetterTargetArn,
      maxReceiveCount,
    };
  } catch {
    return null;
  }
}

interface CachedSettings {
  readonly settings: SqsQueueSettings;
  readonly until: number;
}

/**
 * Queue URLs by name (GetQueueUrl) and queue settings by URL (GetQueueAttributes), each looked up
 * once and shared by concurrent callers; settings are read again after {@link SETTINGS_TTL_MS}.
 */
export class QueueDirectory {
  readonly #http: SqsHttp;
  readonly #clock: Clock;
  readonly #accountId: string | undefined;
  readonly #queues = new Map<string, SqsQueue>();
  readonly #pending = new Map<string, Promise<SqsQueue>>();
  readonly #settings = new Map<string, CachedSettings>();
  readonly #pendingSettings = new Map<string, Promise<SqsQueueSettings>>();

  /** `accountId` names the owner of queues in another account. */
  constructor(http: SqsHttp, clock: Clock, accountId: string | undefined) {
    this.#http = http;
    this.#clock = clock;
    this.#accountId = accountId;
  }

  /** The queue of that name when it was looked up before; no request. */
  known(name: string): SqsQueue | undefined {
    return this.#queues.get(name);
  }

  /** The queue of that name, its URL looked up once; `QueueNotFound` when SQS has none. */
  resolve(name: string, context: OperationContext): Promise<SqsQueue> {
    const known = this.#queues.get(name);
    if (known !== undefined) return Promise.resolve(known);
    let pending = this.#pending.get(name);
    if (pending === undefined) {
      checkSqsQueueName(name);
      pending = this.#lookUp(name, context).finally(() => this.#pending.delete(name));
      this.#pending.set(name, pending);
    }
    return pending;
  }

  /** The queue a URL names, with its URL already known. */
  fromUrl(url: string): SqsQueue {
    const name = queueNameOfUrl(url);
    return this.#queues.get(name) ?? { name, url, fifo: isFifoName(name) };
  }

  /** Remembers a queue whose URL is known (one just created). */
  remember(queue: SqsQueue): void {
    this.#queues.set(queue.name, queue);
  }

  /** The queue's lock duration and redrive policy, read at most once per {@link SETTINGS_TTL_MS}. */
  settings(queue: SqsQueue, context: OperationContext): Promise<SqsQueueSettings> {
    const cached = this.#settings.get(queue.url);
    if (cached !== undefined && this.#clock.now() < cached.until) return Promise.resolve(cached.settings);
    let pending = this.#pendingSettings.get(queue.url);
    if (pending === undefined) {
      pending = this.#readSettings(queue, context).finally(() => this.#pendingSettings.delete(queue.url));
      this.#pendingSettings.set(queue.url, pending);
    }
    return pending;
  }

  /** The settings read now, whatever is cached (and cached from now on). */
  freshSettings(queue: SqsQueue, context: OperationContext): Promise<SqsQueueSettings> {
    this.#settings.delete(queue.url);
    return this.settings(queue, context);
  }

  /** The settings when they are cached and fresh; no request. */
  knownSettings(queue: SqsQueue): SqsQueueSettings | undefined {
    const cached = this.#settings.get(queue.url);
    return cached !== undefined && this.#clock.now() < cached.until ? cached.settings : undefined;
  }

  /** Forgets what is known of a queue (it was deleted or changed). */
  forget(name: string): void {
    const known = this.#queues.get(name);
    this.#queues.delete(name);
    if (known !== undefined) this.#settings.delete(known.url);
  }

  async #lookUp(name: string, context: OperationContext): Promise<SqsQueue> {
    const { QueueUrl } = await this.#http.call(
      "GetQueueUrl",
      {
        QueueName: name,
        ...(this.#accountId === undefined ? {} : { QueueOwnerAWSAccountId: this.#accountId }),
      },
      context,
    );
    if (QueueUrl === undefined)
      throw new QueueError("Provider", `GetQueueUrl answered no URL for queue ${name}`, {
        isTransient: false,
      });
    const queue: SqsQueue = { name, url: QueueUrl, fifo: isFifoName(name) };
    this.#queues.set(name, queue);
    return queue;
  }

  async #readSettings(queue: SqsQueue, context: OperationContext): Promise<SqsQueueSettings> {
    const { Attributes = {} } = await this.#http.call(
      "GetQueueAttributes",
      { QueueUrl: queue.url, AttributeNames: ["VisibilityTimeout", "RedrivePolicy"] },
      context,
    );
    const settings: SqsQueueSettings = {
      lockDurationMs: Number(Attributes.VisibilityTimeout ?? 30) * 1000,
      redrive: parseRedrivePolicy(Attributes.RedrivePolicy),
    };
    this.#settings.set(queue.url, { settings, until: this.#clock.now() + SETTINGS_TTL_MS });
    return settings;
  }
}

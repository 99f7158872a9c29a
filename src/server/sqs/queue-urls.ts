import { sqsError } from "../../aws/index.js";
import { BoundedCache } from "../../core/bounded-cache.js";

/** The account id the server answers for when none is configured. */
export const DEFAULT_ACCOUNT_ID = "000000000000";

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;
/** Queue URLs whose name is remembered: clients send the same few URLs on every request. */
const REMEMBERED_URLS = 1_024;
const FIFO_SUFFIX = ".fifo";

/** Where queues live and how SQS names them: URLs on the server's origin and ARNs in its region. */
export class QueueAddresses {
  readonly region: string;
  readonly accountId: string;
  readonly #names = new BoundedCache<string, string>(REMEMBERED_URLS);

  constructor(region: string, accountId: string) {
    this.region = region;
    this.accountId = accountId;
  }

  /** The URL of a queue on `origin` (`http://host:port`), as SDKs send it back. */
  url(origin: string, name: string): string {
    return `${origin}/${this.accountId}/${name}`;
  }

  /** The ARN of a queue. */
  arn(name: string): string {
    return `arn:aws:sqs:${this.region}:${this.accountId}:${name}`;
  }

  /** The queue a URL names: its last path segment; `QueueDoesNotExist` for anything unreadable or another account's. */
  nameFromUrl(url: string): string {
    const known = this.#names.get(url);
    if (known !== undefined) return known;
    const name = nameInUrl(url, this.accountId);
    this.#names.set(url, name);
    return name;
  }

  /** The queue an ARN names, in this region and account; `InvalidParameterValue` otherwise. */
  nameFromArn(arn: string, parameter: string): string {
    const parts = arn.split(":");
    const name = parts[5] ?? "";
    if (parts.length !== 6 || parts[0] !== "arn" || parts[2] !== "sqs" || !isQueueName(name))
      throw sqsError(
        "InvalidParameterValue",
        `Value ${arn} for parameter ${parameter} is invalid. Reason: not an SQS queue ARN.`,
      );
    return name;
  }
}

/**
 * The queue name in a URL's path (`/<account>/<name>`, or a bare name); a URL of another account
 * names a queue this server does not have, as on SQS. Parsing a URL is the costly part (about
 * 1 µs); an unreadable one is taken as a bare path.
 */
function nameInUrl(url: string, accountId: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url;
  }
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1);
  const owner = path.slice(path.lastIndexOf("/", slash - 1) + 1, Math.max(slash, 0));
  if (!isQueueName(name) || (owner !== "" && owner !== accountId))
    throw sqsError("QueueDoesNotExist", "The specified queue does not exist.");
  return name;
}

/** True for a name SQS accepts: up to 80 of `[A-Za-z0-9_-]`, FIFO queues ending in `.fifo`. */
export function isQueueName(name: string): boolean {
  const base = name.endsWith(FIFO_SUFFIX) ? name.slice(0, -FIFO_SUFFIX.length) : name;
  return name.length <= 80 && QUEUE_NAME.test(base);
}

/** True when the name ends in `.fifo`. */
export function hasFifoSuffix(name: string): boolean {
  return name.endsWith(FIFO_SUFFIX);
}

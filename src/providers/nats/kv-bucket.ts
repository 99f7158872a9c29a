import { PubHeaders } from "@nats-io/jetstream";
import { type KV, type KvEntry, Kvm, type KvOptions } from "@nats-io/kv";
import { Empty, headers, type Msg } from "@nats-io/transport-node";
import { QueueError } from "../../core/errors.js";
import { pubAck } from "./api-answers.js";
import type { NatsLink } from "./connection.js";
import { token } from "./names.js";

/** What a bucket's readers take of an entry. */
export type KvValue = Pick<KvEntry, "value" | "string" | "json">;

/** The value a direct get of a key's last entry answered, when live. */
function liveValue(answer: Msg): KvValue | undefined {
  const status = answer.headers?.code ?? 0;
  if (status === 404) return undefined;
  if (status !== 0)
    throw new QueueError("Provider", `a direct get answered ${status} ${answer.headers?.description ?? ""}`);
  const operation = answer.headers?.get("KV-Operation") ?? "";
  if (operation !== "" || answer.data.length === 0) return undefined;
  return { value: answer.data, string: () => answer.string(), json: <T>() => answer.json<T>() };
}

/**
 * A KV bucket of the provider, made on first use by whichever process comes first (a create of
 * one that exists with the same settings opens it). Keys start with the queue's token, so a
 * queue's keys are found and purged together.
 */
export class KvBucket {
  readonly #link: NatsLink;
  readonly #name: string;
  readonly #options: Partial<KvOptions>;
  #kv: Promise<KV> | undefined;
  /** Whether the bucket answers direct gets (all made by this library do), read when opened. */
  #direct = false;

  constructor(link: NatsLink, name: string, options: Partial<KvOptions>) {
    this.#link = link;
    this.#name = name;
    this.#options = { history: 1, ...options };
  }

  /** The bucket, opened once. */
  open(): Promise<KV> {
    this.#kv ??= this.#link
      .call(`opening the bucket ${this.#name}`, async () => {
        const kvm = new Kvm(this.#link.nc);
        // Two processes making it at once: the one that lost opens what the other made.
        const kv = await kvm.create(this.#name, this.#options).catch(() => kvm.open(this.#name));
        this.#direct = (await kv.status()).streamInfo.config.allow_direct === true;
        return kv;
      })
      .catch((error: unknown) => {
        this.#kv = undefined;
        throw error;
      });
    return this.#kv;
  }

  /**
   * The live value of `key` (not deleted, not empty), or undefined: by a direct get sent with the
   * turn's other requests (a catalog read comes before every send and receive).
   */
  async entry(key: string, what: string): Promise<KvValue | undefined> {
    const kv = await this.open();
    if (!this.#direct) {
      const entry = await this.#link.call(what, () => kv.get(key));
      return entry === null || entry.operation !== "PUT" || entry.value.length === 0 ? undefined : entry;
    }
    const subject = `$KV.${this.#name}.${key}`;
    return this.#link.ask(what, `$JS.API.DIRECT.GET.KV_${this.#name}.${subject}`, Empty, liveValue);
  }

  /**
   * Writes `value` to `key` only if the key holds nothing: a KV create without the library's
   * fallback for a deleted or purged key (which holds a marker), which the caller reads and
   * updates itself. Resolves the revision written; sent with the turn's other requests.
   */
  async createNew(key: string, value: string, what: string): Promise<number> {
    await this.open();
    const expect = headers();
    expect.set(PubHeaders.ExpectedLastSubjectSequenceHdr, "0");
    return this.#link.ask(
      what,
      `$KV.${this.#name}.${key}`,
      value,
      (answer) => pubAck(answer).sequence,
      expect,
    );
  }

  /** Purges every key of `queue`. */
  async forgetQueue(queue: string): Promise<void> {
    const kv = await this.open();
    await this.#link.call(`forgetting ${this.#name} of ${queue}`, async () => {
      const keys: string[] = [];
      for await (const key of await kv.keys(`${token(queue)}.>`)) keys.push(key);
      await Promise.all(keys.map((key) => kv.purge(key)));
    });
  }
}

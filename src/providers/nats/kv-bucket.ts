import { PubHeaders } from "@nats-io/jetstream";
import { type KV, type KvEntry, Kvm, type KvOptions } from "@nats-io/kv";
import { headers } from "@nats-io/transport-node";
import { pubAck } from "./api-answers.js";
import type { NatsLink } from "./connection.js";
import { token } from "./names.js";

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
        return kvm.create(this.#name, this.#options).catch(() => kvm.open(this.#name));
      })
      .catch((error: unknown) => {
        this.#kv = undefined;
        throw error;
      });
    return this.#kv;
  }

  /** The live entry of `key` (not deleted, not empty), or undefined. */
  async entry(key: string, what: string): Promise<KvEntry | undefined> {
    const kv = await this.open();
    const entry = await this.#link.call(what, () => kv.get(key));
    return entry === null || entry.operation !== "PUT" || entry.value.length === 0 ? undefined : entry;
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

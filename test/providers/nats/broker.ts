import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll } from "vitest";
import { createClient, type QueueClient } from "../../../src/index.js";
import "../../../src/providers/nats/index.js";
import type { NatsProviderConfig } from "../../../src/providers/nats/index.js";

/** The shared NATS server of the tests (never stopped by them). */
export const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

/** A stream prefix unique to this run and `label`. */
export function uniquePrefix(label: string): string {
  return `${label}${randomBytes(4).toString("hex")}`;
}

/** The KV buckets the provider makes under a prefix. */
const BUCKETS = ["queues", "sessions", "marks", "dedup"];

/** Deletes every stream (KV buckets included) made under each of `prefixes` on `servers`. */
export async function deleteStreams(prefixes: Iterable<string>, servers = NATS_URL): Promise<void> {
  const owned = [...prefixes];
  if (owned.length === 0) return;
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    for (const prefix of owned) {
      // Found by their subjects, so that the thousands of other streams a shared server may hold are not listed.
      const names = BUCKETS.map((bucket) => `KV_${prefix}_${bucket}`);
      for await (const name of jsm.streams.names(`${prefix}.>`)) names.push(name);
      await Promise.all(names.map((name) => jsm.streams.delete(name).catch(() => false)));
    }
  } finally {
    await nc.close();
  }
}

/** What a test client may set besides its prefix. */
export type ClientOptions = { createQueues?: boolean; servers?: NatsProviderConfig["servers"] } & Omit<
  NatsProviderConfig,
  "type" | "servers" | "streamPrefix"
>;

/**
 * Prefixes handed out by this file, whose streams are deleted after its tests: `prefix(label)`
 * makes one, `client(prefix, options)` a client on it. With `deleteOnLastClose` (runs that make
 * hundreds of prefixes), a prefix's streams go as soon as the last of its clients closes.
 */
export function usePrefixes({ deleteOnLastClose = false } = {}): {
  prefix: (label: string) => string;
  client: (prefix: string, options?: ClientOptions) => Promise<QueueClient>;
} {
  const used = new Set<string>();
  const open = new Map<string, number>();
  afterAll(() => deleteStreams(used), 60_000);
  return {
    prefix: (label) => {
      const prefix = uniquePrefix(label);
      used.add(prefix);
      return prefix;
    },
    client: async (prefix, options = {}) => {
      used.add(prefix);
      const { createQueues = false, ...rest } = options;
      const client = await createClient({
        provider: { type: "nats", servers: NATS_URL, streamPrefix: prefix, ...rest },
        createQueues,
      });
      if (!deleteOnLastClose) return client;
      // The last client of a prefix to close deletes its streams: a file's runs do not pile up on the server.
      open.set(prefix, (open.get(prefix) ?? 0) + 1);
      const close = client.close.bind(client);
      let closed = false;
      client.close = async () => {
        await close();
        if (closed) return;
        closed = true;
        const left = (open.get(prefix) ?? 1) - 1;
        open.set(prefix, left);
        if (left > 0) return;
        used.delete(prefix);
        await deleteStreams([prefix], typeof rest.servers === "string" ? rest.servers : NATS_URL).catch(
          () => undefined,
        );
      };
      return client;
    },
  };
}

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

/** Deletes every stream (KV buckets included) made under each of `prefixes` on `servers`. */
export async function deleteStreams(prefixes: Iterable<string>, servers = NATS_URL): Promise<void> {
  const owned = [...prefixes];
  if (owned.length === 0) return;
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    const names: string[] = [];
    for await (const name of jsm.streams.names()) names.push(name);
    const mine = names.filter((name) =>
      owned.some((prefix) => name.startsWith(`${prefix}_`) || name.startsWith(`KV_${prefix}_`)),
    );
    await Promise.all(mine.map((name) => jsm.streams.delete(name).catch(() => false)));
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
 * makes one, `client(prefix, options)` a client on it.
 */
export function usePrefixes(): {
  prefix: (label: string) => string;
  client: (prefix: string, options?: ClientOptions) => Promise<QueueClient>;
} {
  const used = new Set<string>();
  afterAll(() => deleteStreams(used), 60_000);
  return {
    prefix: (label) => {
      const prefix = uniquePrefix(label);
      used.add(prefix);
      return prefix;
    },
    client: (prefix, options = {}) => {
      used.add(prefix);
      const { createQueues = false, ...rest } = options;
      return createClient({
        provider: { type: "nats", servers: NATS_URL, streamPrefix: prefix, ...rest },
        createQueues,
      });
    },
  };
}

import { describe, expect, it } from "vitest";
import { prepareMessage } from "../../src/core/validation.js";
import { MemoryStore } from "../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import { EngineProvider } from "../../src/providers/engine/engine-provider.js";
import { fullCapabilities } from "../../src/rules/full-capabilities.js";

/** A memory store that counts its outermost transactions (the ones a disk store would commit). */
class CountingStore extends MemoryStore {
  commits = 0;
  #depth = 0;

  override transaction<T>(fn: () => T): T {
    if (this.#depth === 0) this.commits++;
    this.#depth++;
    try {
      return super.transaction(fn);
    } finally {
      this.#depth--;
    }
  }
}

const capabilities = fullCapabilities(256 * 1024, 100);
const context = { signal: new AbortController().signal, timeoutMs: 1_000 };
const message = (body: string) => prepareMessage(body, capabilities);

function groupCommitting() {
  const store = new CountingStore();
  const engine = new QueueEngine(store);
  engine.createQueue("q");
  const provider = new EngineProvider(engine, "sqlite", capabilities, () => undefined, { groupCommit: true });
  store.commits = 0;
  return { store, provider };
}

describe("EngineProvider with group commit", () => {
  it("runs a send, the first try of a receive and a complete issued in one tick in one transaction", async () => {
    const { store, provider } = groupCommitting();
    await provider.sendMessages("q", [message("first")], context);
    const [held] = await provider.receiveMessages("q", 1, 0, context);
    store.commits = 0;

    const [sent, received, completed] = await Promise.all([
      provider.sendMessages("q", [message("second")], context),
      provider.receiveMessages("q", 10, 0, context),
      provider.completeMessage(held!.receiptHandle),
    ]);
    expect(store.commits).toBe(1);
    expect(sent).toMatchObject([{ ok: true, messageId: expect.any(String) }]);
    expect(received.map((delivery) => delivery.body.toString())).toEqual(["second"]);
    expect(completed).toBeUndefined();
  });

  it("lets a receive that found nothing wait in its own time, and ends it when the client closes", async () => {
    const { provider } = groupCommitting();
    const closing = new AbortController();
    const waiting = provider.receiveMessages("q", 1, 60_000, { signal: closing.signal, timeoutMs: 1_000 });
    await new Promise((resolve) => setImmediate(resolve));
    const [sent] = await provider.sendMessages("q", [message("late")], context);
    const [received] = await waiting;
    expect(sent).toMatchObject({ ok: true, messageId: received?.messageId });

    const ended = provider.receiveMessages("q", 1, 60_000, { signal: closing.signal, timeoutMs: 1_000 });
    closing.abort();
    await expect(ended).resolves.toEqual([]);
  });
});

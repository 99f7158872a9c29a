import { describe, expect, it } from "vitest";
import { QueueError } from "../../src/core/errors.js";
import { WriteBatcher } from "../../src/engine/write-batcher.js";

/** A store stand-in: counts transactions and keeps the writes of committed ones. */
function fakeStore() {
  const committed: string[] = [];
  let transactions = 0;
  const transaction = <T>(fn: () => T): T => {
    transactions++;
    const before = committed.length;
    try {
      return fn();
    } catch (error) {
      committed.length = before;
      throw error;
    }
  };
  return { committed, transaction, transactions: () => transactions };
}

describe("WriteBatcher", () => {
  it("runs writes issued together in one transaction, each with its own result", async () => {
    const store = fakeStore();
    const batcher = new WriteBatcher(store.transaction);
    const results = await Promise.all(
      ["a", "b", "c"].map((name) =>
        batcher.run(() => {
          store.committed.push(name);
          return name.toUpperCase();
        }),
      ),
    );
    expect(results).toEqual(["A", "B", "C"]);
    expect(store.transactions()).toBe(1);
    expect(store.committed).toEqual(["a", "b", "c"]);
  });

  it("fails only the write that threw a QueueError; the others commit", async () => {
    const store = fakeStore();
    const batcher = new WriteBatcher(store.transaction);
    const outcomes = await Promise.allSettled([
      batcher.run(() => store.committed.push("a")),
      batcher.run(() => {
        throw new QueueError("InvalidReceipt", "gone");
      }),
      batcher.run(() => store.committed.push("c")),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: "InvalidReceipt" });
    expect(store.committed).toEqual(["a", "c"]);
  });

  it("rolls back and fails every write of the batch on any other error", async () => {
    const store = fakeStore();
    const batcher = new WriteBatcher(store.transaction);
    const failure = new Error("disk I/O error");
    const outcomes = await Promise.allSettled([
      batcher.run(() => store.committed.push("a")),
      batcher.run(() => {
        throw failure;
      }),
    ]);
    expect(outcomes.every((outcome) => outcome.status === "rejected")).toBe(true);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBe(failure);
    expect(store.committed).toEqual([]);
  });

  it("settles a write only after its transaction has run", async () => {
    const store = fakeStore();
    const batcher = new WriteBatcher(store.transaction);
    let settled = false;
    const write = batcher
      .run(() => "done")
      .then(() => {
        settled = true;
      });
    expect(store.transactions()).toBe(0);
    expect(settled).toBe(false);
    await write;
    expect(store.transactions()).toBe(1);
  });

  /** Issues a write, lets every queued microtask run, then issues another: two callers, one turn. */
  async function twoCallersInOneTurn(batcher: WriteBatcher, store: ReturnType<typeof fakeStore>) {
    const first = batcher.run(() => store.committed.push("x"));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    const second = batcher.run(() => store.committed.push("y"));
    await Promise.all([first, second]);
  }

  it("with setImmediate as its schedule, groups writes of callers that run one after another in a turn", async () => {
    const store = fakeStore();
    await twoCallersInOneTurn(new WriteBatcher(store.transaction, setImmediate), store);
    expect(store.committed).toEqual(["x", "y"]);
    expect(store.transactions()).toBe(1);
  });

  it("by default commits a caller's writes once its microtasks are done", async () => {
    const store = fakeStore();
    await twoCallersInOneTurn(new WriteBatcher(store.transaction), store);
    expect(store.committed).toEqual(["x", "y"]);
    expect(store.transactions()).toBe(2);
  });
});

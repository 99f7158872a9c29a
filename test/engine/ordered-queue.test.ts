import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OrderedQueue } from "../../src/engine/memory/ordered-queue.js";

interface Entry {
  key: number;
  tie: number;
}

describe("OrderedQueue", () => {
  it("pops entries in (key, tie) order whatever order they were pushed in", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 5 })),
            fc.constant(null),
          ),
          {
            maxLength: 300,
          },
        ),
        (operations) => {
          const queue = new OrderedQueue<Entry>();
          const model: Entry[] = [];
          for (const operation of operations) {
            if (operation === null) {
              model.sort((a, b) => a.key - b.key || a.tie - b.tie);
              const expected = model.shift();
              const actual = queue.pop();
              expect(actual && [actual.key, actual.tie]).toEqual(expected && [expected.key, expected.tie]);
            } else {
              const entry = { key: operation[0], tie: operation[1] };
              queue.push(entry);
              model.push(entry);
            }
          }
          expect(queue.size).toBe(model.length);
        },
      ),
    );
  });

  it("take returns entries in order, drops what it is told to, and keeps the rest queued", () => {
    const queue = new OrderedQueue<Entry>();
    for (const key of [5, 1, 4, 2, 3]) queue.push({ key, tie: 0 });
    const taken = queue.take(2, (entry) => (entry.key === 2 ? "drop" : "take"));
    expect(taken.map((entry) => entry.key)).toEqual([1, 3]);
    expect(queue.size).toBe(4);
    expect(queue.take(10, (entry) => (entry.key > 3 ? "stop" : "take")).map((entry) => entry.key)).toEqual([
      1, 3,
    ]);
    expect(queue.first((entry) => entry.key >= 4)?.key).toBe(4);
    expect(queue.size).toBe(2);
  });

  it("keeps appends O(1) for rising keys (a run, no heap)", () => {
    const queue = new OrderedQueue<Entry>();
    for (let key = 0; key < 100_000; key++) queue.push({ key, tie: 0 });
    for (let key = 0; key < 100_000; key++) expect(queue.pop()?.key).toBe(key);
    expect(queue.pop()).toBeUndefined();
  });
});

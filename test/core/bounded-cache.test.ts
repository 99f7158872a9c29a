import { describe, expect, it } from "vitest";
import { BoundedCache } from "../../src/core/bounded-cache.js";

describe("BoundedCache", () => {
  it("remembers up to its size, then forgets everything before taking the next entry", () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    expect([cache.get("a"), cache.get("b")]).toEqual([1, 2]);
    cache.set("a", 10);
    expect([cache.get("a"), cache.get("b")]).toEqual([10, undefined]);
    cache.set("c", 3);
    expect([cache.get("a"), cache.get("c")]).toEqual([10, 3]);
  });
});

import { describe, expect, it } from "vitest";
import { newMessageId } from "../../src/rules/message-ids.js";

describe("newMessageId", () => {
  it("makes version 4 UUIDs, all different, across many refills of its random bytes", () => {
    const ids = Array.from({ length: 5_000 }, () => newMessageId());
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("uses every hex digit in every random position (no stuck bits)", () => {
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2_000; i++) {
      const id = newMessageId();
      for (let at = 0; at < id.length; at++) seen[at]!.add(id[at]!);
    }
    const random = [...Array(36).keys()].filter((at) => ![8, 13, 14, 18, 19, 23].includes(at));
    for (const at of random) expect(seen[at]!.size, `position ${at}`).toBe(16);
    expect(seen[19]!.size).toBe(4);
  });
});

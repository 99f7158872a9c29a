import { describe, expect, test } from "vitest";
import { createClient, VirtualClock } from "../../src/index.js";

describe("admin.peekMessages on the engine providers", () => {
  test("held messages whose time to live ended still show, in flight", async () => {
    const clock = new VirtualClock();
    const client = await createClient({ provider: { type: "memory", name: "peek-paging", clock } });
    try {
      await client.sendMessage("q", { body: "short", timeToLiveMs: 1 });
      await client.sendMessage("q", { body: "held", timeToLiveMs: 1 });
      await client.sendMessages("q", ["a", "b", "c"]);
      await client.receiveMessages("q", 2, 0);
      await clock.advance(10);
      // Both ran out of time to live while a receiver holds them: they show, in flight.
      const peeked = await client.admin.peekMessages("q", 3);
      expect(peeked.map((message) => [message.text(), message.state])).toEqual([
        ["short", "inFlight"],
        ["held", "inFlight"],
        ["a", "active"],
      ]);
    } finally {
      await client.close();
    }
  });

  test("a page past expired messages still gives max", async () => {
    const clock = new VirtualClock();
    const client = await createClient({ provider: { type: "memory", name: "peek-expired", clock } });
    try {
      await client.sendMessages("q", [
        { body: "x", timeToLiveMs: 1 },
        { body: "y", timeToLiveMs: 1 },
        "a",
        "b",
      ]);
      await clock.advance(10);
      expect((await client.admin.peekMessages("q", 2)).map((message) => message.text())).toEqual(["a", "b"]);
    } finally {
      await client.close();
    }
  });
});

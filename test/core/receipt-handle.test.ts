import { describe, expect, it } from "vitest";
import { QueueError, ReceiptHandle } from "../../src/index.js";

describe("ReceiptHandle", () => {
  it("turns into text and back, whatever the queue name holds", () => {
    for (const queue of ["orders", "a/b/$deadletterqueue", "x:y%z", "orders.fifo"]) {
      const handle = new ReceiptHandle("memory", queue, "1a.tok:en.with:colons", 1_800_000_000_000);
      const parsed = ReceiptHandle.parse(String(handle));
      expect(parsed).toBeInstanceOf(ReceiptHandle);
      expect(parsed.queue).toBe(queue);
      expect(parsed.token).toBe("1a.tok:en.with:colons");
      expect(parsed.providerType).toBe("memory");
      expect(parsed.expiresAt.getTime()).toBe(1_800_000_000_000);
      expect(JSON.parse(JSON.stringify({ handle }))).toEqual({ handle: String(handle) });
    }
  });

  it("refuses text that is not a receipt with InvalidReceipt", () => {
    for (const text of [
      "",
      "nope",
      "qr1:memory:abc:q:t",
      "qr2:memory:1:q:t",
      "qr1::1:q:t",
      "qr1:memory:1:q:",
      "qr1:memory:1:%E0%A4%A:t",
    ]) {
      let error: unknown;
      try {
        ReceiptHandle.parse(text);
      } catch (thrown) {
        error = thrown;
      }
      expect(QueueError.is(error, "InvalidReceipt"), text).toBe(true);
    }
  });

  it("knows when its lock has passed", () => {
    const handle = new ReceiptHandle("memory", "q", "1.t", 1_000);
    expect(handle.isExpired(999)).toBe(false);
    expect(handle.isExpired(1_000)).toBe(true);
    expect(handle.withExpiry(5_000).isExpired(1_000)).toBe(false);
  });
});

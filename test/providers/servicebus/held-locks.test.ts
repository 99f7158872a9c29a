import { randomUUID } from "node:crypto";
import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { describe, expect, test } from "vitest";
import { QueueError } from "../../../src/core/errors.js";
import { ReceiptHandle } from "../../../src/core/receipt-handle.js";
import { fromSdkError } from "../../../src/providers/servicebus/errors.js";
import { type AnyReceiver, HeldLocks } from "../../../src/providers/servicebus/held-locks.js";
import { parseReceipt, receiptToken } from "../../../src/providers/servicebus/receipts.js";

const receiver = {} as AnyReceiver;
const message = (lockedUntilMs: number): ServiceBusReceivedMessage =>
  ({
    lockToken: randomUUID(),
    lockedUntilUtc: new Date(lockedUntilMs),
  }) as unknown as ServiceBusReceivedMessage;

describe("servicebus provider: held locks", () => {
  test("messages whose locks ended a minute ago and were never settled are forgotten, live ones kept", () => {
    const held = new HeldLocks();
    const now = Date.now();
    let released = 0;
    const live = message(now + 30_000);
    held.hold({ message: live, receiver }, now);
    for (let i = 0; i < 1_100; i++)
      held.hold({ message: message(now - 61_000), receiver, released: () => released++ }, now);
    expect(released).toBeGreaterThanOrEqual(1_000);
    expect(held.find({ lockToken: live.lockToken!, sessionId: undefined })?.message).toBe(live);
  });

  test("a receipt's token holds the lock token and the session, and nothing else passes for one", () => {
    const lockToken = randomUUID();
    const token = receiptToken(lockToken.toUpperCase(), "order/7 ~x");
    const parsed = parseReceipt(new ReceiptHandle("servicebus", "q", token, 0));
    expect(parsed).toEqual({ lockToken, sessionId: "order/7 ~x" });
    expect(parseReceipt(new ReceiptHandle("servicebus", "q", lockToken, 0)).sessionId).toBeUndefined();
    for (const forged of ["424242.forged-lock", `${lockToken}x`, `${lockToken}~%E0%A4%A`])
      expect(() => parseReceipt(new ReceiptHandle("servicebus", "q", forged, 0))).toThrow(QueueError);
  });

  test("the SDK's errors map to queue-runtime's codes, with secrets redacted", () => {
    const redact = (text: string) => text.replaceAll("s3cret", "***");
    const sdk = (code: string, text = "boom") => Object.assign(new Error(text), { code });
    expect(fromSdkError(sdk("MessagingEntityNotFound"), "x", redact).code).toBe("QueueNotFound");
    expect(fromSdkError(sdk("MessageLockLost"), "x", redact).code).toBe("InvalidReceipt");
    expect(fromSdkError(sdk("SessionCannotBeLocked"), "x", redact).code).toBe("SessionLocked");
    expect(fromSdkError(sdk("ServiceBusy"), "x", redact).isTransient).toBe(true);
    expect(fromSdkError(Object.assign(new Error("conflict"), { statusCode: 409 }), "x", redact).code).toBe(
      "QueueAlreadyExists",
    );
    expect(fromSdkError(new Error("Failed to connect"), "x", redact).code).toBe("ConnectionFailed");
    const unknown = fromSdkError(
      Object.assign(sdk("GeneralError", "key s3cret leaked"), { retryable: true }),
      "x",
      redact,
    );
    expect([unknown.code, unknown.isTransient, unknown.message]).toEqual([
      "Provider",
      true,
      "x: key *** leaked",
    ]);
  });
});

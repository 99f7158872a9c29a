import { describe, expect, test } from "vitest";
import type { Message as SqsMessage } from "../../../src/aws/json-protocol/sqs-types.js";
import { QueueError } from "../../../src/core/errors.js";
import type { OutgoingMessage } from "../../../src/core/provider.js";
import {
  decodeMessage,
  deduplicationIdOf,
  delaySeconds,
  encodeBody,
  encodeMessage,
  RESERVED_ATTRIBUTES,
} from "../../../src/providers/sqs/message-mapping.js";
import { parseReceipt } from "../../../src/providers/sqs/receipts.js";
import { outgoingMessage } from "../../support/outgoing-message.js";

const URL_OF_QUEUE = "http://127.0.0.1:9324/000000000000/orders";
const queue = { name: "orders", url: URL_OF_QUEUE, fifo: false };
const fifoQueue = { name: "orders.fifo", url: `${URL_OF_QUEUE}.fifo`, fifo: true };

function outgoing(fields: Partial<OutgoingMessage> & { body: Uint8Array }): OutgoingMessage {
  const { body, ...rest } = fields;
  return outgoingMessage(body, rest);
}

/** What SQS hands back for a message sent as `encoded`. */
function asReceived(
  message: OutgoingMessage,
  fifo: boolean,
  system: Record<string, string> = {},
): SqsMessage {
  const encoded = encodeMessage(message, fifo);
  return {
    MessageId: "sqs-id-1",
    ReceiptHandle: "handle-1",
    Body: encoded.body,
    Attributes: { ApproximateReceiveCount: "2", SentTimestamp: "1700000000000", ...system },
    ...(encoded.attributes === undefined ? {} : { MessageAttributes: encoded.attributes }),
  };
}

const text = (value: string) => Buffer.from(value, "utf8");

describe("bodies", () => {
  test("valid UTF-8 of characters SQS allows travels as it is, a byte-order mark included", () => {
    expect(encodeBody(text("plain é ✓ 🎉\r\n\t"))).toEqual({
      text: "plain é ✓ 🎉\r\n\t",
      encoding: undefined,
    });
    expect(encodeBody(text("\uFEFFbom"))).toEqual({ text: "\uFEFFbom", encoding: undefined });
  });

  test("other bytes, characters SQS refuses and the empty body are base64 or marked empty", () => {
    expect(encodeBody(Uint8Array.from([0xff, 0xfe]))).toEqual({ text: "//4=", encoding: "base64" });
    expect(encodeBody(text("nul\u0000"))).toEqual({
      text: text("nul\u0000").toString("base64"),
      encoding: "base64",
    });
    expect(encodeBody(text("\uFFFE"))).toMatchObject({ encoding: "base64" });
    expect(encodeBody(new Uint8Array(0))).toMatchObject({ encoding: "empty" });
  });

  test("every body comes back byte for byte", () => {
    for (const body of [
      text("hello"),
      Uint8Array.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
      new Uint8Array(0),
      text("\u0001control"),
    ]) {
      const decoded = decodeMessage(asReceived(outgoing({ body }), false), queue, 1, 2).delivery;
      expect([...decoded.body]).toEqual([...body]);
    }
  });
});

describe("attributes and fields", () => {
  test("correlation id, content type, message id and session id round-trip and are hidden from attributes", () => {
    const message = outgoing({
      body: text("x"),
      attributes: { tenant: "acme" },
      correlationId: "order-42",
      contentType: "application/json",
      messageId: "my-id",
      sessionId: "customer-7",
    });
    const received = asReceived(message, false);
    expect(Object.keys(received.MessageAttributes ?? {}).sort()).toEqual([
      RESERVED_ATTRIBUTES.contentType,
      RESERVED_ATTRIBUTES.correlationId,
      RESERVED_ATTRIBUTES.messageId,
      RESERVED_ATTRIBUTES.sessionId,
      "tenant",
    ]);
    const delivery = decodeMessage(received, queue, 1, 2).delivery;
    expect(delivery.attributes).toEqual({ tenant: "acme" });
    expect(delivery).toMatchObject({
      messageId: "my-id",
      correlationId: "order-42",
      contentType: "application/json",
      sessionId: "customer-7",
      deliveryCount: 2,
    });
    expect(delivery.enqueuedAt.getTime()).toBe(1_700_000_000_000);
  });

  test("on a FIFO queue the session is the message group, not an attribute", () => {
    const message = outgoing({ body: text("x"), sessionId: "g1" });
    const received = asReceived(message, true, {
      MessageGroupId: "g1",
      SequenceNumber: "00000000000000000007",
    });
    expect(received.MessageAttributes).toBeUndefined();
    const delivery = decodeMessage(received, fifoQueue, 1, 2).delivery;
    expect(delivery.sessionId).toBe("g1");
    expect(delivery.sequenceNumber).toBe("00000000000000000007");
  });

  test("attributes SQS cannot carry as they are travel packed, and all come back exactly", () => {
    const attributes: Record<string, string> = {
      empty: "",
      "has space": "v",
      "AWS.reserved": "v",
      "trailing.": "v",
      control: "bell\u0007",
      lone: "\ud800",
    };
    for (let i = 0; i < 12; i++) attributes[`a${i}`] = `value-${i}`;
    const message = outgoing({
      body: Uint8Array.from([0xff]),
      attributes,
      correlationId: "c\u0000",
      contentType: "t",
    });
    const encoded = encodeMessage(message, false);
    expect(Object.keys(encoded.attributes ?? {}).length).toBeLessThanOrEqual(10);
    expect(encoded.attributes?.[RESERVED_ATTRIBUTES.attributes]?.DataType).toBe("Binary");
    const delivery = decodeMessage(asReceived(message, false), queue, 1, 2).delivery;
    expect(delivery.attributes).toEqual(attributes);
    expect(delivery.correlationId).toBe("c\u0000");
    expect(delivery.contentType).toBe("t");
  });

  test("attribute names with the reserved prefix are refused", () => {
    const error = (() => {
      try {
        encodeMessage(outgoing({ body: text("x"), attributes: { "qr.mine": "v" } }), false);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(QueueError.is(error, "Validation")).toBe(true);
  });

  test("the size is counted as SQS counts it: body as sent, attribute names, data types and values", () => {
    expect(encodeMessage(outgoing({ body: text("abc") }), false).bytes).toBe(3);
    expect(encodeMessage(outgoing({ body: text("abc"), attributes: { k: "vv" } }), false).bytes).toBe(
      3 + 1 + "String".length + 2,
    );
    const binary = encodeMessage(outgoing({ body: new Uint8Array(3).fill(0xff) }), false);
    expect(binary.bytes).toBe(4 + RESERVED_ATTRIBUTES.encoding.length + "String".length + "base64".length);
  });

  test("attributes other producers set are shown as text, Binary ones base64", () => {
    const delivery = decodeMessage(
      {
        MessageId: "m",
        ReceiptHandle: "h",
        Body: "b",
        MessageAttributes: {
          price: { DataType: "Number", StringValue: "4.5" },
          blob: { DataType: "Binary", BinaryValue: Uint8Array.from([1, 2, 3]) },
        },
      },
      queue,
      5,
      10,
    ).delivery;
    expect(delivery.attributes).toEqual({ price: "4.5", blob: "AQID" });
    expect(delivery.messageId).toBe("m");
    expect(delivery.deliveryCount).toBe(1);
  });
});

describe("delays, deduplication ids and receipts", () => {
  test("delays round up to whole seconds, at most 900", () => {
    expect([1, 999, 1_000, 1_001, 900_000].map(delaySeconds)).toEqual([1, 1, 1, 2, 900]);
  });

  test("a FIFO deduplication id is the given one, else the message id, else one generated per message", () => {
    expect(deduplicationIdOf(outgoing({ body: text("x"), deduplicationId: "d", messageId: "m" }))).toBe("d");
    expect(deduplicationIdOf(outgoing({ body: text("x"), messageId: "m" }))).toBe("m");
    const message = outgoing({ body: text("x") });
    const generated = deduplicationIdOf(message);
    expect(deduplicationIdOf(message)).toBe(generated);
    expect(deduplicationIdOf(outgoing({ body: text("x") }))).not.toBe(generated);
  });

  test("a receipt holds the queue URL and SQS's receipt handle, and another provider's token is refused", () => {
    const delivery = decodeMessage(asReceived(outgoing({ body: text("x") }), false), queue, 1, 2).delivery;
    expect(parseReceipt(delivery.receiptHandle)).toEqual({ url: URL_OF_QUEUE, handle: "handle-1" });
    expect(delivery.receiptHandle.expiresAtMs).toBe(2);
    const forged = { ...delivery.receiptHandle, token: "424242.forged-lock", queue: "orders" };
    expect(() => parseReceipt(forged as typeof delivery.receiptHandle)).toThrow(QueueError);
    const otherQueue = { ...delivery.receiptHandle, token: delivery.receiptHandle.token, queue: "payments" };
    expect(() => parseReceipt(otherQueue as typeof delivery.receiptHandle)).toThrow(/does not refer/);
  });
});

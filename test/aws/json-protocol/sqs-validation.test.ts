import { describe, expect, it } from "vitest";
import type { MessageAttributeValue } from "../../../src/aws/index.js";
import {
  checkBatchEntries,
  checkMessageAttributes,
  checkMessageSystemAttributes,
  findInvalidCharacter,
} from "../../../src/aws/index.js";

function failure(run: () => unknown): { awsCode: string; message: string } {
  try {
    run();
  } catch (error) {
    return error as { awsCode: string; message: string };
  }
  throw new Error("expected a failure");
}

const entries = (...ids: string[]) => ids.map((Id) => ({ Id }));

describe("checkBatchEntries", () => {
  it("accepts one to ten distinct, well-formed ids", () => {
    expect(() => checkBatchEntries(entries("a"), "SendMessageBatchRequestEntry")).not.toThrow();
    const ten = entries(...Array.from({ length: 10 }, (_, i) => `id_${i}-x`));
    expect(() => checkBatchEntries(ten, "SendMessageBatchRequestEntry")).not.toThrow();
    expect(() => checkBatchEntries(entries("x".repeat(80)), "E")).not.toThrow();
  });

  it("refuses an empty batch, more than ten entries, bad ids and repeated ids", () => {
    expect(failure(() => checkBatchEntries([], "DeleteMessageBatchRequestEntry"))).toMatchObject({
      awsCode: "EmptyBatchRequest",
      message: "There should be at least one DeleteMessageBatchRequestEntry in the request.",
    });
    const twenty = entries(...Array.from({ length: 20 }, (_, i) => `${i}`));
    expect(failure(() => checkBatchEntries(twenty, "E"))).toMatchObject({
      awsCode: "TooManyEntriesInBatchRequest",
      message: "Maximum number of entries per request are 10. You have sent 20.",
    });
    for (const id of ["", "a b", "x".repeat(81), "é"]) {
      expect(failure(() => checkBatchEntries(entries(id), "E")).awsCode).toBe("InvalidBatchEntryId");
    }
    expect(failure(() => checkBatchEntries(entries("a", "b", "a"), "E"))).toMatchObject({
      awsCode: "BatchEntryIdsNotDistinct",
    });
  });
});

describe("findInvalidCharacter", () => {
  it("allows tab, line breaks and XML characters, refusing controls and lone surrogates", () => {
    expect(findInvalidCharacter("héllo\t\r\n wörld 😀 \uFFFD")).toBe(-1);
    expect(findInvalidCharacter("ab\u0000")).toBe(2);
    expect(findInvalidCharacter("a\uFFFE")).toBe(1);
    expect(findInvalidCharacter("a\uD800b")).toBe(1);
  });
});

describe("checkMessageAttributes", () => {
  const valid: Record<string, MessageAttributeValue> = {
    s: { DataType: "String", StringValue: "héllo" },
    n: { DataType: "Number.float", StringValue: "-1.5e3" },
    b: { DataType: "Binary", BinaryValue: new Uint8Array([1, 2, 3]) },
    "my.attr_1-x": { DataType: "String.custom", StringValue: "v" },
  };

  it("accepts valid attributes and counts name, type and value bytes", () => {
    const expected = 1 + 6 + 6 + (1 + 12 + 6) + (1 + 6 + 3) + (11 + 13 + 1);
    expect(checkMessageAttributes(valid)).toBe(expected);
  });

  it("refuses bad names, types and values with InvalidParameterValue", () => {
    const bad: Record<string, MessageAttributeValue>[] = [
      { "AWS.x": { DataType: "String", StringValue: "v" } },
      { "amazon.x": { DataType: "String", StringValue: "v" } },
      { ".x": { DataType: "String", StringValue: "v" } },
      { "x.": { DataType: "String", StringValue: "v" } },
      { "a..b": { DataType: "String", StringValue: "v" } },
      { "a b": { DataType: "String", StringValue: "v" } },
      { x: { DataType: "Text", StringValue: "v" } },
      { x: { DataType: "String", StringValue: "" } },
      { x: { DataType: "String" } },
      { x: { DataType: "Number", StringValue: "forty" } },
      { x: { DataType: "Binary", BinaryValue: new Uint8Array() } },
      { x: { DataType: "String", StringValue: "\u0001" } },
      Object.fromEntries(
        Array.from({ length: 11 }, (_, i) => [`a${i}`, { DataType: "String", StringValue: "v" }]),
      ),
    ];
    for (const attributes of bad) {
      expect(failure(() => checkMessageAttributes(attributes)).awsCode, JSON.stringify(attributes)).toBe(
        "InvalidParameterValue",
      );
    }
    expect(
      failure(() => checkMessageAttributes({ ErrorDetails: { DataType: "String", StringValue: "" } }))
        .message,
    ).toBe("Message (user) attribute 'ErrorDetails' must contain a non-empty value of type 'String'.");
  });
});

describe("checkMessageSystemAttributes", () => {
  it("accepts AWSTraceHeader only, as a non-empty String", () => {
    expect(() =>
      checkMessageSystemAttributes({ AWSTraceHeader: { DataType: "String", StringValue: "Root=1-abc" } }),
    ).not.toThrow();
    expect(
      failure(() => checkMessageSystemAttributes({ Other: { DataType: "String", StringValue: "v" } }))
        .awsCode,
    ).toBe("InvalidParameterValue");
    expect(
      failure(() =>
        checkMessageSystemAttributes({
          AWSTraceHeader: { DataType: "Binary", BinaryValue: new Uint8Array([1]) },
        }),
      ).awsCode,
    ).toBe("InvalidParameterValue");
  });
});

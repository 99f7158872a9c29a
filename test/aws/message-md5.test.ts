import { describe, expect, it } from "vitest";
import type { Md5AttributeValue } from "../../src/aws/message-md5.js";
import {
  md5OfMessageAttributes,
  md5OfMessageBody,
  md5OfMessageSystemAttributes,
} from "../../src/aws/message-md5.js";
import { readTestJson } from "./testdata.js";

interface WireAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
}

interface Vectors {
  attributeVectors: { source: string; MessageAttributes: Record<string, WireAttribute>; md5: string }[];
  bodyVectors: { source: string; MessageBody: string; md5OfUtf8: string }[];
}

const vectors = readTestJson<Vectors>("sqs-json-samples/md5-vectors.json");

/** The JSON protocol carries binary values as base64; the digest covers the decoded bytes. */
function decoded(attributes: Record<string, WireAttribute>): Record<string, Md5AttributeValue> {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        DataType: value.DataType,
        StringValue: value.StringValue,
        BinaryValue: value.BinaryValue === undefined ? undefined : Buffer.from(value.BinaryValue, "base64"),
      },
    ]),
  );
}

describe("MD5OfMessageAttributes", () => {
  it("has vectors to check", () => {
    expect(vectors.attributeVectors.length).toBe(15);
  });

  vectors.attributeVectors.forEach((vector, index) => {
    it(`vector ${index + 1}: ${Object.keys(vector.MessageAttributes).join(", ")} (${vector.source})`, () => {
      expect(md5OfMessageAttributes(decoded(vector.MessageAttributes))).toBe(vector.md5);
    });
  });

  it("is undefined without attributes, as SQS then omits it", () => {
    expect(md5OfMessageAttributes({})).toBeUndefined();
  });

  it("covers string and binary lists with transport bytes 3 and 4", () => {
    const strings = md5OfMessageAttributes({ a: { DataType: "String", StringListValues: ["x", "y"] } });
    const binaries = md5OfMessageAttributes({
      a: { DataType: "String", BinaryListValues: [Buffer.from("x")] },
    });
    expect(strings).toMatch(/^[0-9a-f]{32}$/);
    expect(binaries).not.toBe(strings);
  });

  it("computes MD5OfMessageSystemAttributes the same way", () => {
    const trace = {
      AWSTraceHeader: { DataType: "String", StringValue: "Root=1-5759e988-bd862e3fe1be46a994272793" },
    };
    expect(md5OfMessageSystemAttributes(trace)).toBe(md5OfMessageAttributes(trace));
  });
});

describe("MD5OfMessageBody", () => {
  for (const vector of vectors.bodyVectors) {
    it(`${JSON.stringify(vector.MessageBody)} (${vector.source})`, () => {
      expect(md5OfMessageBody(vector.MessageBody)).toBe(vector.md5OfUtf8);
      expect(md5OfMessageBody(Buffer.from(vector.MessageBody, "utf8"))).toBe(vector.md5OfUtf8);
    });
  }
});

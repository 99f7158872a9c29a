import { describe, expect, it } from "vitest";
import {
  decodeQueryRequest,
  encodeQueryError,
  encodeQueryResponse,
  mapKeyName,
  QUERY_MEMBER_NAMES,
  sqsError,
} from "../../../src/aws/index.js";
import { readTestJson } from "../testdata.js";

interface ModelShape {
  type: string;
  members?: Record<string, { target: string; traits?: Record<string, unknown> }>;
  key?: { traits?: Record<string, unknown> };
}

const shapes = readTestJson<{ shapes: Record<string, ModelShape> }>("sqs-model/sqs-2012-11-05.json").shapes;
const NS = "com.amazonaws.sqs#";

describe("query protocol names follow the SQS model", () => {
  it("names every list and map member by its xmlName, all of them flattened", () => {
    const expected: Record<string, Record<string, string>> = {};
    for (const [id, shape] of Object.entries(shapes)) {
      if (shape.type !== "structure" || !id.startsWith(NS)) continue;
      for (const [member, { traits = {} }] of Object.entries(shape.members ?? {})) {
        const name = traits["smithy.api#xmlName"] as string | undefined;
        if (name === undefined) continue;
        expect(traits["smithy.api#xmlFlattened"], `${id}.${member}`).toBeDefined();
        const structure = id.slice(NS.length);
        expected[structure] = { ...expected[structure], [member]: name };
      }
    }
    expect(QUERY_MEMBER_NAMES).toEqual(expected);
  });

  it("names map keys as the model does: Key for tags, Name for every other map", () => {
    for (const [id, shape] of Object.entries(shapes)) {
      if (shape.type !== "structure" || !id.startsWith(NS)) continue;
      for (const [member, { target }] of Object.entries(shape.members ?? {})) {
        const map = shapes[target];
        if (map?.type !== "map") continue;
        expect(mapKeyName(id.slice(NS.length), member), `${id}.${member}`).toBe(
          map.key?.traits?.["smithy.api#xmlName"],
        );
      }
    }
  });
});

describe("query protocol requests", () => {
  it("reads flattened lists, maps and nested structures into the JSON protocol's shape", () => {
    const request = decodeQueryRequest(
      new URLSearchParams({
        Action: "SendMessageBatch",
        Version: "2012-11-05",
        QueueUrl: "http://localhost/000000000000/q",
        "SendMessageBatchRequestEntry.1.Id": "a",
        "SendMessageBatchRequestEntry.1.MessageBody": "one",
        "SendMessageBatchRequestEntry.1.DelaySeconds": "5",
        "SendMessageBatchRequestEntry.1.MessageAttribute.1.Name": "team",
        "SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType": "String",
        "SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue": "core",
        "SendMessageBatchRequestEntry.1.MessageAttribute.2.Name": "raw",
        "SendMessageBatchRequestEntry.1.MessageAttribute.2.Value.DataType": "Binary",
        "SendMessageBatchRequestEntry.1.MessageAttribute.2.Value.BinaryValue": "AAEC",
        "SendMessageBatchRequestEntry.2.Id": "b",
        "SendMessageBatchRequestEntry.2.MessageBody": "two",
      }),
    );
    expect(request).toEqual({
      operation: "SendMessageBatch",
      input: {
        QueueUrl: "http://localhost/000000000000/q",
        Entries: [
          {
            Id: "a",
            MessageBody: "one",
            DelaySeconds: 5,
            MessageAttributes: {
              team: { DataType: "String", StringValue: "core" },
              raw: { DataType: "Binary", BinaryValue: Buffer.from([0, 1, 2]) },
            },
          },
          { Id: "b", MessageBody: "two" },
        ],
      },
    });
  });

  it("reads attribute maps, tags and name lists; takes the queue from the path when QueueUrl is absent", () => {
    expect(
      decodeQueryRequest(
        new URLSearchParams(
          "Action=CreateQueue&QueueName=q&Attribute.1.Name=VisibilityTimeout&Attribute.1.Value=45&Tag.1.Key=team&Tag.1.Value=core",
        ),
      ).input,
    ).toEqual({ QueueName: "q", Attributes: { VisibilityTimeout: "45" }, tags: { team: "core" } });
    expect(
      decodeQueryRequest(
        new URLSearchParams(
          "Action=ReceiveMessage&AttributeName.1=All&MessageAttributeName.1=team&MaxNumberOfMessages=10",
        ),
        "http://localhost/000000000000/q",
      ).input,
    ).toEqual({
      QueueUrl: "http://localhost/000000000000/q",
      AttributeNames: ["All"],
      MessageAttributeNames: ["team"],
      MaxNumberOfMessages: 10,
    });
  });

  it("keeps a map key named __proto__ as a key", () => {
    const { input } = decodeQueryRequest(
      new URLSearchParams(
        "Action=TagQueue&QueueUrl=u&Tag.1.Key=__proto__&Tag.1.Value=x&Tag.2.Key=team&Tag.2.Value=core",
      ),
    ) as { input: { Tags: Record<string, string> } };
    expect(Object.keys(input.Tags)).toEqual(["__proto__", "team"]);
    expect(Object.getPrototypeOf(input.Tags)).toBe(Object.prototype);
  });

  it("refuses what the JSON protocol refuses, with the same codes, and unknown or missing actions", () => {
    const codeOf = (query: string) => {
      try {
        decodeQueryRequest(new URLSearchParams(query));
      } catch (error) {
        return (error as { queryCode?: string }).queryCode;
      }
      return undefined;
    };
    expect(codeOf("Version=2012-11-05")).toBe("MissingAction");
    expect(codeOf("Action=FlyToTheMoon")).toBe("InvalidAction");
    expect(codeOf("Action=SendMessage&QueueUrl=u")).toBe("MissingParameter");
    expect(codeOf("Action=ReceiveMessage&QueueUrl=u&MaxNumberOfMessages=ten")).toBe("InvalidParameterValue");
    expect(
      codeOf(
        "Action=SendMessage&QueueUrl=u&MessageBody=x&MessageAttribute.1.Name=b&MessageAttribute.1.Value.DataType=Binary&MessageAttribute.1.Value.BinaryValue=not%20base64",
      ),
    ).toBe("InvalidParameterValue");
  });
});

describe("query protocol answers", () => {
  it("writes results as SQS's XML: flattened lists and maps, bytes as base64, text escaped", () => {
    const xml = encodeQueryResponse(
      "ReceiveMessage",
      {
        Messages: [
          {
            MessageId: "m1",
            ReceiptHandle: "r1",
            MD5OfBody: "5d41",
            Body: "<a & 'b'>\r\n",
            Attributes: { SentTimestamp: "1" },
            MessageAttributes: { raw: { DataType: "Binary", BinaryValue: Uint8Array.from([0, 1, 2]) } },
          },
        ],
      },
      "req-1",
    );
    expect(xml).toBe(
      '<?xml version="1.0"?><ReceiveMessageResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><ReceiveMessageResult><Message><MessageId>m1</MessageId><ReceiptHandle>r1</ReceiptHandle><MD5OfBody>5d41</MD5OfBody><Body>&lt;a &amp; &apos;b&apos;&gt;&#xD;\n</Body><Attribute><Name>SentTimestamp</Name><Value>1</Value></Attribute><MessageAttribute><Name>raw</Name><Value><BinaryValue>AAEC</BinaryValue><DataType>Binary</DataType></Value></MessageAttribute></Message></ReceiveMessageResult><ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></ReceiveMessageResponse>',
    );
    expect(encodeQueryResponse("DeleteMessage", {}, "req-2")).toBe(
      '<?xml version="1.0"?><DeleteMessageResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><ResponseMetadata><RequestId>req-2</RequestId></ResponseMetadata></DeleteMessageResponse>',
    );
  });

  it("writes errors as <ErrorResponse> with the query code, fault and status of the JSON protocol", () => {
    const answer = encodeQueryError(
      sqsError("QueueDoesNotExist", "The specified queue does not exist."),
      "req-3",
    );
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toBe("text/xml");
    expect(answer.body).toBe(
      '<?xml version="1.0"?><ErrorResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><Error><Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code><Message>The specified queue does not exist.</Message><Detail/></Error><RequestId>req-3</RequestId></ErrorResponse>',
    );
    expect(encodeQueryError(new Error("internal detail"), "req-4").body).not.toContain("internal detail");
  });
});

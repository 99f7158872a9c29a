import { describe, expect, it } from "vitest";
import type { AwsError, SendMessageRequest, SqsRequest } from "../../../src/aws/index.js";
import {
  AWS_JSON_1_0,
  decodeSqsRequest,
  encodeSqsError,
  encodeSqsResponse,
  md5OfMessageAttributes,
  md5OfMessageBody,
  sigV4Error,
  sqsError,
} from "../../../src/aws/index.js";
import { QueueError } from "../../../src/core/errors.js";
import { readTestJson } from "../testdata.js";

interface CapturedRequest {
  operation: string;
  rawHeaders: [string, string][];
  body: string;
}

const samples = readTestJson<{ requests: CapturedRequest[] }>(
  "sqs-json-samples/js-sdk-v3-signed-requests.json",
);
const captured = (operation: string) => samples.requests.find((request) => request.operation === operation)!;

const headersFor = (operation: string, extra: Record<string, string> = {}) => ({
  "content-type": AWS_JSON_1_0,
  "x-amz-target": `AmazonSQS.${operation}`,
  ...extra,
});

function rejection(run: () => unknown): AwsError {
  try {
    run();
  } catch (error) {
    return error as AwsError;
  }
  throw new Error("expected a failure");
}

describe("decodeSqsRequest", () => {
  for (const request of samples.requests) {
    it(`decodes the JS SDK's ${request.operation}`, () => {
      const decoded = decodeSqsRequest(request.rawHeaders.flat(), Buffer.from(request.body));
      expect(decoded.operation).toBe(request.operation);
    });
  }

  it("gives SendMessage's binary attribute as bytes, from which the MD5s follow", () => {
    const decoded = decodeSqsRequest(captured("SendMessage").rawHeaders.flat(), captured("SendMessage").body);
    expect(decoded.operation).toBe("SendMessage");
    const input = decoded.input as SendMessageRequest;
    expect(input.MessageBody).toBe("héllo wörld");
    expect(input.MessageGroupId).toBe("g1");
    expect(Buffer.from(input.MessageAttributes!.b!.BinaryValue!)).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(md5OfMessageBody(input.MessageBody)).toBe("ed0c22cc110ede12327851863c078138");
    expect(md5OfMessageAttributes(input.MessageAttributes!)).toBe("a3ce46a2e2b5683424f47c31b0e61c60");
  });

  it("narrows the input by operation", () => {
    const decoded: SqsRequest = decodeSqsRequest(
      captured("ReceiveMessage").rawHeaders.flat(),
      captured("ReceiveMessage").body,
    );
    if (decoded.operation !== "ReceiveMessage") throw new Error("wrong operation");
    expect(decoded.input.WaitTimeSeconds).toBe(20);
    expect(decoded.input.MessageAttributeNames).toEqual(["All"]);
  });

  it("reads an empty body as no members, and ignores unknown members and nulls", () => {
    expect(decodeSqsRequest(headersFor("ListQueues"), "")).toEqual({ operation: "ListQueues", input: {} });
    expect(
      decodeSqsRequest(headersFor("ListQueues"), '{"QueueNamePrefix":null,"Unknown":1,"MaxResults":5}').input,
    ).toMatchObject({ MaxResults: 5 });
  });

  it("accepts a charset parameter on the content type", () => {
    const headers = headersFor("ListQueues", { "content-type": "application/x-amz-json-1.0; charset=utf-8" });
    expect(decodeSqsRequest(headers, "{}").operation).toBe("ListQueues");
  });

  it("answers UnsupportedMediaType (415) for any other content type", () => {
    for (const contentType of ["application/x-www-form-urlencoded", "application/json", undefined]) {
      const headers: Record<string, string> = { "x-amz-target": "AmazonSQS.ListQueues" };
      if (contentType !== undefined) headers["content-type"] = contentType;
      const error = rejection(() => decodeSqsRequest(headers, "Action=ListQueues"));
      expect(error).toMatchObject({ awsCode: "UnsupportedMediaType", status: 415, code: "Validation" });
    }
  });

  it("answers UnsupportedOperation for a missing, foreign or unknown target", () => {
    for (const target of [undefined, "", "AmazonSNS.Publish", "AmazonSQS.Frobnicate", "AmazonSQS."]) {
      const headers: Record<string, string> = { "content-type": AWS_JSON_1_0 };
      if (target !== undefined) headers["x-amz-target"] = target;
      const error = rejection(() => decodeSqsRequest(headers, "{}"));
      expect(error).toMatchObject({
        awsCode: "UnsupportedOperation",
        queryCode: "AWS.SimpleQueueService.UnsupportedOperation",
        status: 400,
        code: "Unsupported",
      });
    }
  });

  it("answers SerializationException for a body that is not a JSON object", () => {
    for (const body of ["{", "not json", "[]", "42", '"text"', "null"]) {
      const error = rejection(() => decodeSqsRequest(headersFor("ListQueues"), body));
      expect(error, body).toMatchObject({
        awsCode: "SerializationException",
        status: 400,
        code: "Validation",
      });
    }
  });

  it("answers MissingParameter, naming the member, for a missing required member", () => {
    const cases: [string, string, string][] = [
      ["SendMessage", '{"QueueUrl":"q"}', "MessageBody"],
      ["SendMessage", '{"QueueUrl":"q","MessageBody":null}', "MessageBody"],
      [
        "SendMessageBatch",
        '{"QueueUrl":"q","Entries":[{"Id":"1","MessageBody":"a"},{"Id":"2"}]}',
        "Entries.2.MessageBody",
      ],
      [
        "SendMessage",
        '{"QueueUrl":"q","MessageBody":"b","MessageAttributes":{"a":{"StringValue":"x"}}}',
        "MessageAttributes.a.DataType",
      ],
    ];
    for (const [operation, body, member] of cases) {
      const error = rejection(() => decodeSqsRequest(headersFor(operation), body));
      expect(error).toMatchObject({
        awsCode: "MissingParameter",
        queryCode: "MissingParameter",
        status: 400,
      });
      expect(error.message).toBe(`The request must contain the parameter ${member}.`);
    }
  });

  it("answers InvalidParameterValue, naming the member, for a wrongly typed member", () => {
    const cases: [string, string, string][] = [
      ["SendMessage", '{"QueueUrl":"q","MessageBody":1}', "MessageBody"],
      ["SendMessage", '{"QueueUrl":"q","MessageBody":"b","DelaySeconds":"5"}', "DelaySeconds"],
      ["SendMessage", '{"QueueUrl":"q","MessageBody":"b","DelaySeconds":1.5}', "DelaySeconds"],
      ["SendMessage", '{"QueueUrl":"q","MessageBody":"b","DelaySeconds":4294967296}', "DelaySeconds"],
      ["ReceiveMessage", '{"QueueUrl":"q","MessageAttributeNames":"All"}', "MessageAttributeNames"],
      ["ReceiveMessage", '{"QueueUrl":"q","MessageAttributeNames":["All",3]}', "MessageAttributeNames.2"],
      ["CreateQueue", '{"QueueName":"q","Attributes":{"DelaySeconds":5}}', "Attributes.DelaySeconds"],
      ["CreateQueue", '{"QueueName":"q","Attributes":[]}', "Attributes"],
      [
        "SendMessage",
        '{"QueueUrl":"q","MessageBody":"b","MessageAttributes":{"a":{"DataType":"Binary","BinaryValue":"not base64!"}}}',
        "MessageAttributes.a.BinaryValue",
      ],
      ["SendMessageBatch", '{"QueueUrl":"q","Entries":{"Id":"1"}}', "Entries"],
    ];
    for (const [operation, body, member] of cases) {
      const error = rejection(() => decodeSqsRequest(headersFor(operation), body));
      expect(error, body).toMatchObject({
        awsCode: "InvalidParameterValue",
        status: 400,
        code: "Validation",
      });
      expect(error.message, body).toContain(`for parameter ${member} is invalid`);
    }
  });
});

describe("encodeSqsResponse", () => {
  it("encodes an empty result as {}", () => {
    expect(encodeSqsResponse("DeleteMessage", {})).toBe("{}");
  });

  it("writes bytes as base64 and leaves out absent members", () => {
    const body = encodeSqsResponse("ReceiveMessage", {
      Messages: [
        {
          MessageId: "m-1",
          Body: "hi",
          MD5OfBody: md5OfMessageBody("hi"),
          MessageAttributes: { b: { DataType: "Binary", BinaryValue: Buffer.from([0, 1, 2, 255]) } },
          ReceiptHandle: undefined,
        },
      ],
    });
    expect(JSON.parse(body)).toEqual({
      Messages: [
        {
          MessageId: "m-1",
          Body: "hi",
          MD5OfBody: "49f68a5c8493ec2c0bf489821c21fc3b",
          MessageAttributes: { b: { DataType: "Binary", BinaryValue: "AAEC/w==" } },
        },
      ],
    });
  });

  it("writes a Uint8Array view at its offset", () => {
    const view = new Uint8Array([9, 9, 104, 105, 9]).subarray(2, 4);
    const body = encodeSqsResponse("ReceiveMessage", {
      Messages: [{ MessageAttributes: { b: { DataType: "Binary", BinaryValue: view } } }],
    });
    expect(body).toContain('"BinaryValue":"aGk="');
  });
});

describe("encodeSqsError", () => {
  it("answers AWS's own shape for QueueDoesNotExist", () => {
    const answer = encodeSqsError(sqsError("QueueDoesNotExist"), "req-1");
    expect(answer.status).toBe(400);
    expect(answer.headers).toEqual({
      "content-type": "application/x-amz-json-1.0",
      "x-amzn-query-error": "AWS.SimpleQueueService.NonExistentQueue;Sender",
      "x-amzn-requestid": "req-1",
    });
    expect(JSON.parse(answer.body)).toEqual({
      __type: "com.amazonaws.sqs#QueueDoesNotExist",
      message: "The specified queue does not exist.",
    });
  });

  it("answers SigV4 failures with their AWS code and status", () => {
    const answer = encodeSqsError(sigV4Error("SignatureDoesNotMatch", "bad signature"));
    expect(answer.status).toBe(403);
    expect(answer.headers["x-amzn-query-error"]).toBe("SignatureDoesNotMatch;Sender");
    expect(JSON.parse(answer.body)).toEqual({
      __type: "com.amazon.coral.service#SignatureDoesNotMatch",
      message: "bad signature",
    });
    expect(encodeSqsError(sigV4Error("InvalidClientTokenId", "x")).status).toBe(403);
  });

  it("answers a plain QueueError by its code", () => {
    expect(
      encodeSqsError(new QueueError("QueueNotFound", "no queue orders")).headers["x-amzn-query-error"],
    ).toBe("AWS.SimpleQueueService.NonExistentQueue;Sender");
    expect(encodeSqsError(new QueueError("InvalidReceipt", "gone")).status).toBe(404);
  });

  it("answers anything else as InternalFailure (500, Receiver) without its message", () => {
    const answer = encodeSqsError(new Error("database path /secret/place is locked"));
    expect(answer.status).toBe(500);
    expect(answer.headers["x-amzn-query-error"]).toBe("InternalFailure;Receiver");
    expect(answer.body).not.toContain("/secret/place");
    expect(encodeSqsError("thrown string").status).toBe(500);
  });
});

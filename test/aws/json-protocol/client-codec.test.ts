import { describe, expect, it } from "vitest";
import type { SqsErrorName } from "../../../src/aws/index.js";
import {
  AwsError,
  decodeSqsError,
  decodeSqsRequest,
  decodeSqsResponse,
  encodeSqsError,
  encodeSqsRequest,
  SQS_ERRORS,
  sqsError,
} from "../../../src/aws/index.js";
import type { QueueErrorCode } from "../../../src/core/errors.js";
import { QueueError } from "../../../src/core/errors.js";

describe("encodeSqsRequest", () => {
  it("sends the JSON 1.0 headers the AWS SDK sends, and bytes as base64", () => {
    const encoded = encodeSqsRequest("SendMessage", {
      QueueUrl: "http://127.0.0.1:9324/000000000000/orders",
      MessageBody: "hi",
      MessageAttributes: { b: { DataType: "Binary", BinaryValue: new Uint8Array([0, 1, 2, 255]) } },
    });
    expect(encoded.headers).toEqual({
      "content-type": "application/x-amz-json-1.0",
      "x-amz-target": "AmazonSQS.SendMessage",
      "x-amzn-query-mode": "true",
    });
    expect(JSON.parse(encoded.body)).toEqual({
      QueueUrl: "http://127.0.0.1:9324/000000000000/orders",
      MessageBody: "hi",
      MessageAttributes: { b: { DataType: "Binary", BinaryValue: "AAEC/w==" } },
    });
  });

  it("encodes a request without members as {}", () => {
    expect(encodeSqsRequest("ListQueues", {}).body).toBe("{}");
  });

  it("is read back by the server codec as the same request", () => {
    const input = {
      QueueUrl: "q",
      Entries: [
        {
          Id: "1",
          MessageBody: "a",
          MessageAttributes: {
            s: { DataType: "String", StringValue: "x" },
            b: { DataType: "Binary.gif", BinaryValue: Buffer.from("GIF89a") },
          },
          MessageGroupId: "g",
        },
        { Id: "2", MessageBody: "b", DelaySeconds: 5 },
      ],
    };
    const encoded = encodeSqsRequest("SendMessageBatch", input);
    expect(decodeSqsRequest(encoded.headers, encoded.body)).toEqual({ operation: "SendMessageBatch", input });
  });
});

describe("decodeSqsResponse", () => {
  it("reads a result, turning base64 back into bytes", () => {
    const body = JSON.stringify({
      Messages: [
        { MessageId: "m", Body: "x", MessageAttributes: { b: { DataType: "Binary", BinaryValue: "aGk=" } } },
      ],
    });
    const result = decodeSqsResponse("ReceiveMessage", 200, {}, Buffer.from(body));
    expect(Buffer.from(result.Messages![0]!.MessageAttributes!.b!.BinaryValue!).toString()).toBe("hi");
  });

  it("reads an empty body as an empty result, and omitted batch lists as absent", () => {
    expect(decodeSqsResponse("DeleteMessage", 200, {}, "")).toEqual({});
    expect(decodeSqsResponse("SendMessageBatch", 200, {}, '{"Successful":[]}')).toEqual({ Successful: [] });
  });

  it("fails with a Provider error for a malformed success body", () => {
    for (const body of ["<html>", '{"Messages":"none"}']) {
      expect(() => decodeSqsResponse("ReceiveMessage", 200, {}, body)).toThrow(QueueError);
      try {
        decodeSqsResponse("ReceiveMessage", 200, {}, body);
      } catch (error) {
        expect(error).toMatchObject({ code: "Provider", providerCode: "MalformedResponse" });
      }
    }
  });

  it("throws the AwsError of an error status", () => {
    const answer = encodeSqsError(sqsError("QueueDoesNotExist"), "req-9");
    expect(() => decodeSqsResponse("GetQueueUrl", answer.status, answer.headers, answer.body)).toThrow(
      AwsError,
    );
  });
});

interface MappingCase {
  name: string;
  status: number;
  headers?: Record<string, string>;
  body: string;
  expected: { awsCode: string; code: QueueErrorCode; isTransient: boolean };
}

const json = (type: string, message = "m") => JSON.stringify({ __type: type, message });

const mappings: MappingCase[] = [
  {
    name: "QueueDoesNotExist with the query error header",
    status: 400,
    headers: { "x-amzn-query-error": "AWS.SimpleQueueService.NonExistentQueue;Sender" },
    body: json("com.amazonaws.sqs#QueueDoesNotExist"),
    expected: { awsCode: "QueueDoesNotExist", code: "QueueNotFound", isTransient: false },
  },
  {
    name: "QueueDoesNotExist from __type alone",
    status: 400,
    body: json("com.amazonaws.sqs#QueueDoesNotExist"),
    expected: { awsCode: "QueueDoesNotExist", code: "QueueNotFound", isTransient: false },
  },
  {
    name: "QueueDoesNotExist from the header alone",
    status: 400,
    headers: { "x-amzn-query-error": "AWS.SimpleQueueService.NonExistentQueue;Sender" },
    body: "",
    expected: { awsCode: "QueueDoesNotExist", code: "QueueNotFound", isTransient: false },
  },
  {
    name: "InvalidParameterValue (unmodeled: the header names it)",
    status: 400,
    headers: { "x-amzn-query-error": "InvalidParameterValue;Sender" },
    body: json("com.amazonaws.sqs#InvalidParameterValueException"),
    expected: { awsCode: "InvalidParameterValue", code: "Validation", isTransient: false },
  },
  {
    name: "a message over the size limit",
    status: 400,
    headers: { "x-amzn-query-error": "InvalidParameterValue;Sender" },
    body: json(
      "InvalidParameterValueException",
      "One or more parameters are invalid. Reason: Message must be shorter than 1048576 bytes.",
    ),
    expected: { awsCode: "InvalidParameterValue", code: "MessageTooLarge", isTransient: false },
  },
  {
    name: "ReceiptHandleIsInvalid",
    status: 404,
    headers: { "x-amzn-query-error": "ReceiptHandleIsInvalid;Sender" },
    body: json("com.amazonaws.sqs#ReceiptHandleIsInvalid"),
    expected: { awsCode: "ReceiptHandleIsInvalid", code: "InvalidReceipt", isTransient: false },
  },
  {
    name: "RequestThrottled",
    status: 403,
    headers: { "x-amzn-query-error": "RequestThrottled;Sender" },
    body: json("com.amazonaws.sqs#RequestThrottled"),
    expected: { awsCode: "RequestThrottled", code: "Throttled", isTransient: true },
  },
  {
    name: "ThrottlingException of another AWS service",
    status: 400,
    body: json("com.amazon.coral.availability#ThrottlingException"),
    expected: { awsCode: "ThrottlingException", code: "Throttled", isTransient: true },
  },
  {
    name: "SignatureDoesNotMatch",
    status: 403,
    headers: { "x-amzn-query-error": "SignatureDoesNotMatch;Sender" },
    body: json("com.amazon.coral.service#SignatureDoesNotMatch"),
    expected: { awsCode: "SignatureDoesNotMatch", code: "Authentication", isTransient: false },
  },
  {
    name: "UnrecognizedClientException (an unknown key elsewhere in AWS)",
    status: 400,
    body: json("com.amazon.coral.service#UnrecognizedClientException"),
    expected: { awsCode: "UnrecognizedClientException", code: "Authentication", isTransient: false },
  },
  {
    name: "AccessDenied",
    status: 403,
    headers: { "x-amzn-query-error": "AccessDenied;Sender" },
    body: json("com.amazon.coral.service#AccessDeniedException"),
    expected: { awsCode: "AccessDenied", code: "PermissionDenied", isTransient: false },
  },
  {
    name: "InternalError",
    status: 500,
    headers: { "x-amzn-query-error": "InternalError;Receiver" },
    body: json("InternalError"),
    expected: { awsCode: "InternalError", code: "Provider", isTransient: true },
  },
  {
    name: "a proxy's 503 HTML page",
    status: 503,
    body: "<html><body>Service Unavailable</body></html>",
    expected: { awsCode: "Http503", code: "Provider", isTransient: true },
  },
  {
    name: "a bare 429",
    status: 429,
    body: "",
    expected: { awsCode: "Http429", code: "Throttled", isTransient: true },
  },
  {
    name: "an unknown client error",
    status: 400,
    headers: { "x-amzn-query-error": "SomethingNew;Sender" },
    body: json("com.amazonaws.sqs#SomethingNew"),
    expected: { awsCode: "SomethingNew", code: "Provider", isTransient: false },
  },
];

describe("decodeSqsError", () => {
  for (const mapping of mappings) {
    it(`maps ${mapping.name}`, () => {
      const error = decodeSqsError(mapping.status, mapping.headers ?? {}, mapping.body);
      expect(error).toBeInstanceOf(QueueError);
      expect(error).toMatchObject({
        ...mapping.expected,
        providerCode: mapping.expected.awsCode,
        status: mapping.status,
      });
    });
  }

  it("keeps the message, the fault, the request id and Retry-After", () => {
    const error = decodeSqsError(
      400,
      {
        "x-amzn-query-error": "AWS.SimpleQueueService.NonExistentQueue;Sender",
        "x-amzn-RequestId": "66916324-67ca-54bb-a410-3f567a7a0571",
        "Retry-After": "2",
      },
      Buffer.from(json("com.amazonaws.sqs#QueueDoesNotExist", "The specified queue does not exist.")),
    );
    expect(error).toMatchObject({
      message: "The specified queue does not exist.",
      fault: "Sender",
      type: "com.amazonaws.sqs#QueueDoesNotExist",
      queryCode: "AWS.SimpleQueueService.NonExistentQueue",
      requestId: "66916324-67ca-54bb-a410-3f567a7a0571",
      retryAfterMs: 2000,
    });
  });

  it("reads the capitalised Message some services send", () => {
    expect(decodeSqsError(400, {}, JSON.stringify({ __type: "X", Message: "capital" })).message).toBe(
      "capital",
    );
  });

  for (const name of Object.keys(SQS_ERRORS) as SqsErrorName[]) {
    it(`reads back what the server answers for ${name}`, () => {
      const sent = sqsError(name, `about ${name}`);
      const answer = encodeSqsError(sent, "r");
      const received = decodeSqsError(answer.status, answer.headers, answer.body);
      expect(received).toMatchObject({
        awsCode: name,
        code: sent.code,
        isTransient: sent.isTransient,
        status: sent.status,
        fault: sent.fault,
        type: sent.type,
        queryCode: sent.queryCode,
        message: `about ${name}`,
        requestId: "r",
      });
    });
  }
});

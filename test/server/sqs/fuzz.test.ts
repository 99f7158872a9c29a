import { ReceiveMessageCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mapKeyName, QUEUE_ATTRIBUTE_NAMES, queryName, type SqsOperation } from "../../../src/aws/index.js";
import type { Schema, StructureSchema } from "../../../src/aws/json-protocol/schema.js";
import { SQS_SCHEMAS } from "../../../src/aws/json-protocol/sqs-schemas.js";
import { sendRequest, type TextAnswer, useSqsServer } from "./harness.js";

// Requests built from the SQS model with values chosen to sit on and past every limit, of the
// wrong type, or naming queues and receipts that do and do not exist. Whatever comes, the server
// answers each with SQS's JSON (an error shape with a 4xx status when it refuses), keeps
// answering, and loses none of what it held; the harness then checks the journal replays to
// exactly what the server held after all of it.

const { server, sqs } = useSqsServer();

const QUEUES = ["fuzz-a", "fuzz-b", "fuzz-c.fifo", "fuzz-d.fifo"];
/** Receipt handles seen in answers: a request asking for `RECENT_HANDLE` gets one of them. */
const RECENT_HANDLE = "<a receipt handle seen earlier>";
const handles: string[] = [];

const textOf = (length: number) => "x".repeat(length);
const wrongType = fc.constantFrom<unknown>(null, 7, -1.5, true, "text", [], {}, [[1]], { a: { b: 1 } });

/** Mostly values a client would send, now and then one on or past a limit. */
function usually<T>(typical: readonly T[], edges: readonly T[]): fc.Arbitrary<T> {
  return fc.oneof(
    { weight: 9, arbitrary: fc.constantFrom(...typical) },
    { weight: 1, arbitrary: fc.constantFrom(...edges) },
  );
}

const text = usually(["x", "0", "é€😀"], ["", "-1", "true", "\u0000", "\uD800", textOf(81), textOf(300)]);
const integers = usually(
  [0, 1, 10, 30],
  [-1, 9, 11, 60, 900, 901, 43_200, 43_201, 2_147_483_647, 2_147_483_648, 1.5, 1e21],
);

function arn(queue: string): string {
  return `arn:aws:sqs:us-east-1:000000000000:${queue}`;
}

/** Values for members whose meaning matters more than their type. */
function named(member: string): fc.Arbitrary<unknown> | undefined {
  const endpoint = server().endpoint;
  switch (member) {
    case "QueueUrl":
      return usually(
        QUEUES.map((queue) => `${endpoint}/000000000000/${queue}`),
        [
          `${endpoint}/000000000000/missing`,
          `${endpoint}/123456789012/fuzz-a`,
          "http://elsewhere.example/000000000000/fuzz-a",
          "not a url",
          "",
        ],
      );
    case "QueueName":
    case "QueueNamePrefix":
      return usually(QUEUES, ["fuzz-e", "", "bad name!", textOf(81), ".fifo", "x.fifo.fifo"]);
    case "SourceArn":
    case "DestinationArn":
      return usually(QUEUES.map(arn), [arn("missing"), "arn:aws:sqs:us-east-1:000000000000", "nope"]);
    case "ReceiptHandle":
      return usually([RECENT_HANDLE], ["", "garbage", "1.AAAA", "999999.x"]);
    case "Id":
      return usually(["a", "b", "c"], ["", "bad id!", textOf(81)]);
    case "MessageBody":
      return usually(
        ["hello", "é€😀", '{"n":1}'],
        ["", "\u0000", "\uD800", textOf(262_145), textOf(1_048_577)],
      );
    case "MessageDeduplicationId":
      // Mostly absent: standard queues refuse one, and one FIFO queue deduplicates by content.
      return usually([undefined], ["d1", "d2", "", textOf(129)]);
    case "MessageGroupId":
    case "ReceiveRequestAttemptId":
      return usually(["g1", "g2"], ["", "bad\u0001id", textOf(129)]);
    case "DataType":
      return usually(["String", "Number", "Binary"], ["String.custom", "Number.x", "Bogus", ""]);
    case "DelaySeconds":
      return usually([0], [1, -1, 900, 901]);
    case "VisibilityTimeout":
      return usually([0, 30], [-1, 43_200, 43_201, 1.5]);
    case "WaitTimeSeconds":
      // A long poll that finds nothing waits out its seconds: the runs stay fast without them.
      return usually([0], [-1, 21, 1.5]);
    case "MaxNumberOfMessages":
    case "MaxResults":
      return usually([1, 10], [-1, 0, 11, 1000, 1001]);
    case "MaxNumberOfMessagesPerSecond":
      return usually([1, 500], [-1, 0, 501]);
    case "AttributeNames":
    case "MessageSystemAttributeNames":
    case "MessageAttributeNames":
    case "TagKeys":
      return fc.array(
        usually(["All", "SentTimestamp", "ApproximateReceiveCount", "team"], [".*", "Bogus", ""]),
        {
          maxLength: 4,
        },
      );
    case "Attributes":
      return queueAttributes();
    case "MessageAttributes":
      return fc.dictionary(
        usually(["team", "n"], ["", "AWS.x", ".x", "a..b", textOf(257)]),
        messageAttribute,
        {
          maxKeys: 3,
        },
      );
    case "MessageSystemAttributes":
      return usually<Record<string, unknown>>(
        [
          {},
          { AWSTraceHeader: { DataType: "String", StringValue: "Root=1-5759e988-bd862e3fe1be46a994272793" } },
        ],
        [
          { AWSTraceHeader: { DataType: "Number", StringValue: "1" } },
          { Bogus: { DataType: "String", StringValue: "x" } },
        ],
      );
    case "StringListValues":
    case "BinaryListValues":
      // Reserved by SQS for later use: a client that sends them is refused, which the edges cover.
      return fc.constant(undefined);
    default:
      return undefined;
  }
}

const messageAttribute = usually<Record<string, unknown>>(
  [
    { DataType: "String", StringValue: "Root=1-5759e988-bd862e3fe1be46a994272793" },
    { DataType: "Number", StringValue: "10" },
    { DataType: "Binary", BinaryValue: "AAEC" },
  ],
  [
    { DataType: "Number", StringValue: "ten" },
    { DataType: "String" },
    { DataType: "Binary", StringValue: "x" },
    { DataType: "String.custom", StringValue: "é" },
    { DataType: "Bogus", StringValue: "x" },
    { DataType: "String", StringValue: "x", StringListValues: ["a"] },
    { DataType: "Binary", BinaryValue: "not base64!" },
  ],
);

function queueAttributes(): fc.Arbitrary<Record<string, unknown>> {
  const redrive = (queue: string, count: unknown) =>
    JSON.stringify({ deadLetterTargetArn: arn(queue), maxReceiveCount: count });
  const value = usually(
    ["0", "30", "1024", "true", redrive("fuzz-b", "1"), redrive("fuzz-d.fifo", 2)],
    [
      "-1",
      "900",
      "901",
      "1048576",
      "1048577",
      "false",
      "x",
      "",
      redrive("missing", "0"),
      JSON.stringify({ redrivePermission: "denyAll" }),
      "{not json",
    ],
  );
  const names = usually(
    ["VisibilityTimeout", "DelaySeconds", "RedrivePolicy", "FifoQueue", "ContentBasedDeduplication"],
    [...QUEUE_ATTRIBUTE_NAMES, "All", "Bogus"],
  );
  return fc
    .dictionary(names, fc.oneof({ weight: 9, arbitrary: value }, wrongType), { maxKeys: 4 })
    .map((attributes) => {
      // A queue that makes every receive wait would stall the run for seconds at a time.
      delete attributes.ReceiveMessageWaitTimeSeconds;
      return attributes;
    });
}

/** A fitting request has values of the right types (some on or past limits); a hostile one, now and then, of the wrong type. */
type Mode = "fitting" | "hostile";

/** An arbitrary value of `schema`; in a hostile request, once in ten of the wrong type. */
function memberValue(schema: Schema, member: string, mode: Mode): fc.Arbitrary<unknown> {
  const fitting = named(member) ?? byKind(schema, mode);
  return mode === "fitting"
    ? fitting
    : fc.oneof({ weight: 9, arbitrary: fitting }, { weight: 1, arbitrary: wrongType });
}

function byKind(schema: Schema, mode: Mode): fc.Arbitrary<unknown> {
  switch (schema.kind) {
    case "string":
      return text;
    case "integer":
    case "long":
      return integers;
    case "boolean":
      return fc.boolean();
    case "blob":
      return usually(["AAEC", "QUJD"], ["", "not base64!", "QQ"]);
    case "list":
      // Batches of one to ten entries mostly, now and then more than SQS takes.
      return usually([1, 2, 10], [0, 11]).chain((length) =>
        fc.array(memberValue(schema.member, "", mode), { minLength: length, maxLength: length }),
      );
    case "map":
      return fc.dictionary(usually(["team", "n"], ["", textOf(257)]), memberValue(schema.value, "", mode), {
        maxKeys: 3,
      });
    case "structure":
      return structureOf(schema, mode);
  }
}

/** Members present or not; the required ones nearly always. */
function structureOf(schema: StructureSchema, mode: Mode): fc.Arbitrary<Record<string, unknown>> {
  const members = Object.fromEntries(
    Object.entries(schema.members).map(([member, shape]) => [member, memberValue(shape, member, mode)]),
  );
  return fc.oneof(
    { weight: 9, arbitrary: fc.record(members, { requiredKeys: [...schema.required] }) },
    { weight: 1, arbitrary: fc.record(members, { requiredKeys: [] }) },
  );
}

const OPERATIONS = Object.keys(SQS_SCHEMAS) as SqsOperation[];
/** The operations that move messages come up four times as often as the rest. */
const MESSAGE_OPERATIONS: readonly SqsOperation[] = [
  "SendMessage",
  "SendMessageBatch",
  "ReceiveMessage",
  "DeleteMessage",
  "DeleteMessageBatch",
  "ChangeMessageVisibility",
  "ChangeMessageVisibilityBatch",
];
const operation = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...MESSAGE_OPERATIONS) },
  { weight: 1, arbitrary: fc.constantFrom(...OPERATIONS) },
);
const request = fc
  .tuple(operation, usually<Mode>(["fitting"], ["hostile"]), fc.constantFrom("json", "query"))
  .chain(([operation, mode, protocol]) =>
    structureOf(SQS_SCHEMAS[operation].input, mode).map((input) => ({ operation, input, protocol })),
  );

/** An input as a query-protocol form, names from the model as a client of that protocol writes them. */
function queryForm(operation: SqsOperation, input: Record<string, unknown>): string {
  const form = new URLSearchParams({ Action: operation, Version: "2012-11-05" });
  const isRecord = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  const write = (value: unknown, schema: Schema, key: string, keyName: string): void => {
    if (value === undefined || value === null) return;
    if (schema.kind === "list" && Array.isArray(value)) {
      for (const [i, item] of value.entries()) write(item, schema.member, `${key}.${i + 1}`, "Name");
    } else if (schema.kind === "map" && isRecord(value)) {
      for (const [i, [name, item]] of Object.entries(value).entries()) {
        form.append(`${key}.${i + 1}.${keyName}`, name);
        write(item, schema.value, `${key}.${i + 1}.Value`, "Name");
      }
    } else if (schema.kind === "structure" && isRecord(value)) {
      writeMembers(value, schema, `${key}.`);
    } else {
      // A value of the wrong type goes as text, as a careless client would send it.
      form.append(key, typeof value === "object" ? JSON.stringify(value) : String(value));
    }
  };
  const writeMembers = (value: Record<string, unknown>, schema: StructureSchema, prefix: string): void => {
    for (const [member, shape] of Object.entries(schema.members))
      write(
        value[member],
        shape,
        `${prefix}${queryName(schema.name, member)}`,
        mapKeyName(schema.name, member),
      );
  };
  writeMembers(input, SQS_SCHEMAS[operation].input, "");
  return form.toString();
}

/** Posts a signed request naming `target` and reads the answer. */
function post(target: string, body: string, contentType = "application/x-amz-json-1.0"): Promise<TextAnswer> {
  return sendRequest(server().endpoint, {
    body,
    headers: { "content-type": contentType, "x-amz-target": target },
  });
}

function expectSqsAnswer(answer: TextAnswer): unknown {
  expect(answer.status, answer.text).toBeLessThan(500);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  expect(typeof body).toBe("object");
  if (answer.status !== 200) {
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(typeof body.__type, answer.text).toBe("string");
    expect(typeof body.message, answer.text).toBe("string");
    expect(answer.headers.get("x-amzn-query-error")).toMatch(/^[\w.]+;(Sender|Receiver)$/);
  }
  return body;
}

const FORM = "application/x-www-form-urlencoded";
const XML_RECEIPT = /<ReceiptHandle>([^<]*)<\/ReceiptHandle>/g;

/** Checks a query-protocol answer: its status, its root, and that it is well-formed XML (tags balanced, text escaped). */
function expectXmlAnswer(operation: string, answer: TextAnswer): string {
  expect(answer.status, answer.text).toBeLessThan(500);
  const root = answer.status === 200 ? `${operation}Response` : "ErrorResponse";
  expect(answer.text.startsWith(`<?xml version="1.0"?><${root} xmlns="`), answer.text).toBe(true);
  const open: string[] = [];
  const text = answer.text
    .slice(answer.text.indexOf("?>") + 2)
    .replace(/<(\/?)([A-Za-z][\w.]*)[^<>]*?(\/?)>/g, (_tag, closing: string, name: string, empty: string) => {
      if (closing) expect(open.pop(), answer.text).toBe(name);
      else if (!empty) open.push(name);
      return "";
    });
  expect(open, answer.text).toEqual([]);
  expect(text, "text outside tags: only escaped characters").not.toMatch(
    /[<>]|&(?!(?:amp|lt|gt|quot|apos|#x[0-9A-F]+);)/,
  );
  if (answer.status !== 200)
    expect(answer.text).toMatch(/<Error><Type>(Sender|Receiver)<\/Type><Code>[\w.]+<\/Code>/);
  return answer.text;
}

function rememberHandles(body: unknown): void {
  const messages = (body as { Messages?: { ReceiptHandle?: unknown }[] }).Messages ?? [];
  for (const message of messages)
    if (typeof message.ReceiptHandle === "string") handles.push(message.ReceiptHandle);
}

describe("SQS server: requests from the model with values on and past every limit", () => {
  it("answers every one in its protocol (JSON or query), never a 5xx or a hang, and keeps what it held", async () => {
    const keep = await sqs().send(
      new SendMessageCommand({ QueueUrl: await keepQueue(), MessageBody: "kept through the fuzz" }),
    );
    await createQueues();
    let answered = 0;
    let succeeded = 0;
    await fc.assert(
      fc.asyncProperty(request, async ({ operation, input, protocol }) => {
        const body = JSON.stringify(input, (_key, value: unknown) =>
          value === RECENT_HANDLE ? (handles[handles.length - 1 - (answered % 3)] ?? "none yet") : value,
        );
        const answer =
          protocol === "json"
            ? await post(`AmazonSQS.${operation}`, body)
            : await post("", queryForm(operation, JSON.parse(body)), FORM);
        if (protocol === "json") rememberHandles(expectSqsAnswer(answer));
        else
          for (const [, handle] of expectXmlAnswer(operation, answer).matchAll(XML_RECEIPT))
            handles.push(handle!);
        answered++;
        if (answer.status === 200) succeeded++;
        if (operation === "DeleteQueue" && answer.status === 200) await createQueues();
      }),
      { numRuns: 400 },
    );
    expect(answered).toBe(400);
    // Not only refusals: a good share got through, and messages were received (their handles reused).
    expect(succeeded).toBeGreaterThan(40);
    expect(handles.length).toBeGreaterThan(0);

    const kept = await sqs().send(
      new ReceiveMessageCommand({
        QueueUrl: await keepQueue(),
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
      }),
    );
    expect(kept.Messages?.map((message) => [message.MessageId, message.Body])).toEqual([
      [keep.MessageId, "kept through the fuzz"],
    ]);
  }, 60_000);

  it("answers bodies that are not the model's JSON with SerializationException or a parameter error", async () => {
    const bodies = fc.oneof(
      fc.string({ maxLength: 64 }),
      fc.json({ maxDepth: 3 }),
      fc.constantFrom("{", '{"QueueUrl":', "[]", "null", "1", '"x"', '{"QueueUrl":{"$ne":1}}', "\uFEFF{}"),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPERATIONS), bodies, async (operation, body) => {
        expectSqsAnswer(await post(`AmazonSQS.${operation}`, body));
      }),
      { numRuns: 200 },
    );
  }, 60_000);

  it("answers form-encoded requests of the query protocol, however garbled, in its XML with a 200 or 4xx", async () => {
    const endpoint = server().endpoint;
    const key = fc.constantFrom(
      "QueueUrl",
      "QueueName",
      "MessageBody",
      "MaxNumberOfMessages",
      "Attribute.1.Name",
      "Attribute.1.Value",
      "AttributeName.1",
      "MessageAttribute.1.Name",
      "MessageAttribute.1.Value.DataType",
      "MessageAttribute.1.Value.StringValue",
      "MessageAttribute.1.Value.BinaryValue",
      "SendMessageBatchRequestEntry.1.Id",
      "SendMessageBatchRequestEntry.1.MessageBody",
      "SendMessageBatchRequestEntry.2.Id",
      "Tag.1.Key",
      "Tag.1.Value",
      "Version",
    );
    const value = fc.oneof(
      text,
      integers.map(String),
      fc.constantFrom(`${endpoint}/000000000000/fuzz-a`, "fuzz-a", "String", "Binary", "AAEC", "%zz"),
    );
    const parameters = fc.array(fc.tuple(key, value), { maxLength: 8 });
    const action = fc.oneof(
      fc.constantFrom(...OPERATIONS),
      fc.constantFrom("", "FlyToTheMoon", "sendmessage"),
    );
    await fc.assert(
      fc.asyncProperty(action, parameters, fc.string({ maxLength: 16 }), async (name, pairs, noise) => {
        const form = new URLSearchParams([["Action", name], ...pairs]).toString();
        expectXmlAnswer(name, await post("", noise === "" ? form : `${form}&${noise}`, FORM));
      }),
      { numRuns: 200 },
    );
  }, 60_000);
});

/** Creates the fuzzed queues again; one that exists with other attributes refuses, as SQS does, and stays as it is. */
async function createQueues(): Promise<void> {
  for (const queue of QUEUES) {
    const attributes = !queue.endsWith(".fifo")
      ? {}
      : queue === "fuzz-c.fifo"
        ? { FifoQueue: "true", ContentBasedDeduplication: "true" }
        : { FifoQueue: "true" };
    const answer = await post(
      "AmazonSQS.CreateQueue",
      JSON.stringify({ QueueName: queue, Attributes: attributes }),
    );
    expectSqsAnswer(answer);
  }
}

let keepUrl: string | undefined;
async function keepQueue(): Promise<string> {
  if (keepUrl === undefined) {
    const answer = await post("AmazonSQS.CreateQueue", JSON.stringify({ QueueName: "fuzz-keep" }));
    keepUrl = (expectSqsAnswer(answer) as { QueueUrl: string }).QueueUrl;
  }
  return keepUrl;
}

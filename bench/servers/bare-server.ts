// The floor of the SQS server benchmark: Node's HTTP server answering the benchmark's operations
// from an array, with nothing a real server does (no validation, signatures, locks or storage).
import { hash, randomUUID } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

interface Stored {
  readonly id: string;
  readonly body: string;
  readonly md5: string;
}

type Input = {
  QueueName?: string;
  Entries?: { Id: string; MessageBody?: string }[];
  MaxNumberOfMessages?: number;
  WaitTimeSeconds?: number;
};

const HEADERS = { "content-type": "application/x-amz-json-1.0" };
const queued: Stored[] = [];
let created = false;
let receipts = 0;

function answer(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(value);
  res
    .writeHead(status, {
      ...HEADERS,
      ...headers,
      "content-length": Buffer.byteLength(text),
      "x-amzn-requestid": randomUUID(),
    })
    .end(text);
}

function receive(res: ServerResponse, input: Input): void {
  const taken = queued.splice(0, input.MaxNumberOfMessages ?? 1);
  answer(res, 200, {
    Messages: taken.map((message) => ({
      MessageId: message.id,
      ReceiptHandle: String(++receipts),
      MD5OfBody: message.md5,
      Body: message.body,
    })),
  });
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const input = JSON.parse(Buffer.concat(chunks).toString() || "{}") as Input;
    const url = `http://${req.headers.host}/000000000000/${input.QueueName}`;
    switch (String(req.headers["x-amz-target"]).slice("AmazonSQS.".length)) {
      case "CreateQueue":
        created = true;
        return answer(res, 200, { QueueUrl: url });
      case "GetQueueUrl":
        return created
          ? answer(res, 200, { QueueUrl: url })
          : answer(
              res,
              400,
              {
                __type: "com.amazonaws.sqs#QueueDoesNotExist",
                message: "The specified queue does not exist.",
              },
              { "x-amzn-query-error": "AWS.SimpleQueueService.NonExistentQueue;Sender" },
            );
      case "SendMessageBatch":
        return answer(res, 200, {
          Successful: (input.Entries ?? []).map((entry) => {
            const stored = {
              id: randomUUID(),
              body: entry.MessageBody ?? "",
              md5: hash("md5", entry.MessageBody ?? "", "hex"),
            };
            queued.push(stored);
            return { Id: entry.Id, MessageId: stored.id, MD5OfMessageBody: stored.md5 };
          }),
          Failed: [],
        });
      case "ReceiveMessage":
        // No long poll: an empty queue answers a waiting receive a little later, so drained clients do not spin.
        if (queued.length === 0 && (input.WaitTimeSeconds ?? 0) > 0) {
          setTimeout(() => receive(res, input), 20);
          return;
        }
        return receive(res, input);
      case "DeleteMessageBatch":
        return answer(res, 200, {
          Successful: (input.Entries ?? []).map((entry) => ({ Id: entry.Id })),
          Failed: [],
        });
      default:
        return answer(res, 200, {});
    }
  });
});

server.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.once("SIGTERM", () => process.exit(0));

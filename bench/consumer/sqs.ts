import { GetQueueUrlCommand, SQSClient } from "@aws-sdk/client-sqs";
import { Consumer } from "sqs-consumer";
import type { Measurement } from "../lib.js";
import { SERVE_CREDENTIALS as credentials } from "../servers/child-server.js";
import { consumeRemote, filledQueue, type Remote, WARM } from "./remote.js";
import { SQS_CONCURRENCY, SQS_CONSUMER_BATCH } from "./settings.js";
import { countTo, timedUntilDone } from "./timed.js";

const REGION = "us-east-1";

/** `queue-runtime serve --memory` at `endpoint`, as our sqs provider reaches it. */
function sqsRemote(endpoint: string): Remote {
  return {
    provider: { type: "sqs", endpoint, region: REGION, credentials },
    queueOptions: { deadLetterQueue: null },
    fillBatch: 10,
  };
}

/** Our `client.consume` over the sqs provider, concurrency {@link SQS_CONCURRENCY}, draining `count` messages of `endpoint`. */
export function oursOverSqs(endpoint: string, count: number): Promise<Measurement> {
  const name = `queue-runtime client.consume, sqs provider, concurrency ${SQS_CONCURRENCY}`;
  return consumeRemote(sqsRemote(endpoint), name, count, SQS_CONCURRENCY);
}

/**
 * sqs-consumer 14.2.8 with an @aws-sdk/client-sqs `SQSClient`, `batchSize` {@link SQS_CONSUMER_BATCH}
 * and a no-op `handleMessage` (returning the message, its way of saying "delete it": a handler
 * resolving nothing leaves the message on the queue), draining `count` messages of `endpoint`;
 * timed from `start()` until `message_processed` (after its delete) has fired for each.
 */
export async function sqsConsumer(endpoint: string, count: number): Promise<Measurement> {
  const filled = await filledQueue(sqsRemote(endpoint), "sqs-consumer", count);
  await filled.client.close();
  const sqs = new SQSClient({ endpoint, region: REGION, credentials });
  let consumer: Consumer | undefined;
  try {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: filled.queue }));
    return await timedUntilDone(
      `sqs-consumer 14.2.8, batchSize ${SQS_CONSUMER_BATCH}`,
      count,
      (done, fail) => {
        consumer = Consumer.create({
          queueUrl: QueueUrl!,
          sqs,
          batchSize: SQS_CONSUMER_BATCH,
          handleMessage: async (message) => message,
        });
        consumer.on("message_processed", countTo(count, done));
        consumer.on("error", fail);
        consumer.on("processing_error", fail);
        consumer.start();
      },
      WARM,
    );
  } finally {
    // Its next receive long-polls the empty queue: aborted rather than waited for.
    consumer?.stop({ abort: true });
    sqs.destroy();
  }
}

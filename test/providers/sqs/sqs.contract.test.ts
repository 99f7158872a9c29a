import { createClient } from "../../../src/index.js";
import { describeQueueContract } from "../../../src/testing/index.js";
import { CREDENTIALS, useSqsServer } from "./server.js";

const server = useSqsServer();

describeQueueContract(
  "sqs",
  ({ createQueues }) =>
    createClient({
      provider: { type: "sqs", endpoint: server.endpoint(), region: "us-east-1", credentials: CREDENTIALS },
      createQueues,
    }),
  { virtualTime: false, lockDurationMs: 1_000, delayUnitMs: 1_000 },
);

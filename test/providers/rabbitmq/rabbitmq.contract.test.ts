import { createClient } from "../../../src/index.js";
import { describeQueueContract } from "../../../src/testing/index.js";
import { prefixPerNamespace, RABBITMQ_URL } from "./broker.js";

const prefixOf = prefixPerNamespace("contract");

describeQueueContract(
  "rabbitmq",
  ({ namespace, createQueues }) =>
    createClient({
      provider: {
        type: "rabbitmq",
        url: RABBITMQ_URL,
        queuePrefix: prefixOf(namespace),
        sessionLockDurationMs: 5_000,
      },
      createQueues,
    }),
  { virtualTime: false, lockDurationMs: 2_000, sessionLockDurationMs: 5_000, delayUnitMs: 1_000 },
);

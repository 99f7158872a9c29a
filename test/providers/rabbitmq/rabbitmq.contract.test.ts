import { afterAll } from "vitest";
import { createClient } from "../../../src/index.js";
import { describeQueueContract } from "../../../src/testing/index.js";
import { cleanPrefix, RABBITMQ_URL, uniquePrefix } from "./broker.js";

const prefix = uniquePrefix("contract");
afterAll(() => cleanPrefix(prefix), 60_000);

describeQueueContract(
  "rabbitmq",
  ({ createQueues }) =>
    createClient({
      provider: { type: "rabbitmq", url: RABBITMQ_URL, queuePrefix: prefix, sessionLockDurationMs: 5_000 },
      createQueues,
    }),
  { virtualTime: false, lockDurationMs: 2_000, sessionLockDurationMs: 5_000, delayUnitMs: 1_000 },
);

import { createClient } from "../../src/index.js";
import { describeQueueContract } from "../../src/testing/index.js";

describeQueueContract(
  "memory",
  ({ clock, namespace, createQueues }) =>
    createClient({ provider: { type: "memory", name: namespace, clock }, createQueues }),
  { virtualTime: true },
);

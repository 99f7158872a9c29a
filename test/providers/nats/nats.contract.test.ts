import { describeQueueContract } from "../../../src/testing/index.js";
import { usePrefixes } from "./broker.js";

// Real time: JetStream keeps the time of locks (ack waits) and delays itself. Each test's
// namespace is its stream prefix, so its clients share queues and no other test sees them.
const prefixes = usePrefixes();

describeQueueContract(
  "nats",
  ({ namespace, createQueues }) => prefixes.client(namespace, { createQueues, sessionLockDurationMs: 2_000 }),
  { virtualTime: false, lockDurationMs: 2_000, sessionLockDurationMs: 2_000, delayUnitMs: 1_000 },
);

import { describeQueueContract } from "../../../src/testing/index.js";
import { useServiceBusServer } from "./server.js";

const server = useServiceBusServer();

// Real time: the SDK and the server run on the system clock. Sessions are locked for their
// queue's lock duration, as on Azure.
describeQueueContract("servicebus", ({ createQueues }) => server.client({ createQueues }), {
  virtualTime: false,
  lockDurationMs: 2_000,
  sessionLockDurationMs: 2_000,
  delayUnitMs: 1_000,
});

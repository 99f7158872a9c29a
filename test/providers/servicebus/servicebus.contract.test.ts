import { createClient } from "../../../src/index.js";
import { describeQueueContract } from "../../../src/testing/index.js";
import { useServiceBusServer } from "./server.js";

// SERVICEBUS_CONNECTION_STRING points the same suite at a real namespace (or the official
// emulator), with SERVICEBUS_ADMINISTRATION_ENDPOINT where its management API is not the
// namespace's own. Azure's shortest lock is 5 s, so the suite's locks are that long there.
const namespace = process.env.SERVICEBUS_CONNECTION_STRING;
const administrationEndpoint = process.env.SERVICEBUS_ADMINISTRATION_ENDPOINT;

if (namespace === undefined || namespace === "") {
  const server = useServiceBusServer();
  // Real time: the SDK and the server run on the system clock. Sessions are locked for their
  // queue's lock duration, as on Azure.
  describeQueueContract("servicebus", ({ createQueues }) => server.client({ createQueues }), {
    virtualTime: false,
    lockDurationMs: 2_000,
    sessionLockDurationMs: 2_000,
    delayUnitMs: 1_000,
  });
} else {
  describeQueueContract(
    "servicebus (SERVICEBUS_CONNECTION_STRING)",
    ({ createQueues }) =>
      createClient({
        provider: {
          type: "servicebus",
          connectionString: namespace,
          ...(administrationEndpoint === undefined ? {} : { administrationEndpoint }),
        },
        createQueues,
      }),
    { virtualTime: false, lockDurationMs: 5_000, sessionLockDurationMs: 5_000, delayUnitMs: 1_000 },
  );
}

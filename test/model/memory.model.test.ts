import { createClient } from "../../src/index.js";
import { checkAgainstModel } from "../../src/testing/model/index.js";

// Clients given the same name share one in-memory engine: the second client of a run sees the first's queues.
checkAgainstModel(
  "memory",
  ({ clock, namespace }) =>
    createClient({ provider: { type: "memory", name: namespace, clock }, createQueues: false }),
  { numRuns: 1_000 },
);

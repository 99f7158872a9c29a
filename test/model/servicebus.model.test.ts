import { checkAgainstModel } from "../../src/testing/model/index.js";
import { SERVICE_BUS_SEMANTICS, serviceBusOverServe } from "./servicebus-over-serve.js";

// Service Bus runs on the SDK's real waits (a receive waits at least 100 ms), so a run takes seconds: few runs here, more in campaigns.
checkAgainstModel("servicebus", serviceBusOverServe, {
  numRuns: 2,
  model: SERVICE_BUS_SEMANTICS,
  timeoutMs: 60_000,
});

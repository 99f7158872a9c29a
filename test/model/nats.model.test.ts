import { checkAgainstModel } from "../../src/testing/model/index.js";
import { NATS_SEMANTICS, natsPerRun } from "./nats-per-run.js";

checkAgainstModel("nats", natsPerRun(), { numRuns: 30, model: NATS_SEMANTICS, timeoutMs: 60_000 });

import { checkAgainstModel } from "../../src/testing/model/index.js";
import { RABBITMQ_SEMANTICS, rabbitMqPerRun } from "./rabbitmq-per-run.js";

checkAgainstModel("rabbitmq", rabbitMqPerRun("model"), {
  numRuns: 15,
  model: RABBITMQ_SEMANTICS,
  timeoutMs: 60_000,
});

import { checkAgainstModel } from "../../src/testing/model/index.js";
import { POSTGRES_SEMANTICS, postgresPerRun } from "./postgres-per-run.js";

checkAgainstModel("postgres", postgresPerRun(), { numRuns: 30, model: POSTGRES_SEMANTICS });

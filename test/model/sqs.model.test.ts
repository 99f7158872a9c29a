import { checkAgainstModel } from "../../src/testing/model/index.js";
import { SQS_SEMANTICS, sqsOverServe } from "./sqs-over-serve.js";

// The sqs provider over `queue-runtime serve`, both keeping the run's virtual time; where SQS's
// semantics differ from the engine's, the model is told (its options), not the runs cut.
checkAgainstModel("sqs over serve", sqsOverServe, { numRuns: 60, model: SQS_SEMANTICS });

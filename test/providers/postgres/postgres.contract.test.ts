import { createClient } from "../../../src/index.js";
import { describeQueueContract } from "../../../src/testing/index.js";
import { POSTGRES_URL, useSchema } from "./database.js";

const schema = useSchema();

describeQueueContract(
  "postgres",
  ({ clock, createQueues }) =>
    createClient({
      provider: {
        type: "postgres",
        connectionString: POSTGRES_URL,
        schema,
        ...(clock === undefined ? {} : { clock }),
      },
      createQueues,
    }),
  { virtualTime: true },
);

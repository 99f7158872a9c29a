import { describe } from "vitest";
import { createClient } from "../../src/index.js";
import { POSTGRES_URL, useSchema } from "../providers/postgres/database.js";
import { telemetryCases } from "./cases.js";

const schema = useSchema();

describe("telemetry on postgres", () => {
  telemetryCases({
    client: () => createClient({ provider: { type: "postgres", connectionString: POSTGRES_URL, schema } }),
    system: "postgresql",
    network: true,
  });
});

import { describe } from "vitest";
import { createClient } from "../../src/index.js";
import { telemetryCases } from "./cases.js";

describe("telemetry on memory", () => {
  telemetryCases({ client: () => createClient("memory:telemetry"), system: "memory", network: false });
});

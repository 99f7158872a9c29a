import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe } from "vitest";
import { createClient } from "../../src/index.js";
import { telemetryCases } from "./cases.js";

const folder = mkdtempSync(join(tmpdir(), "qr-telemetry-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("telemetry on sqlite", () => {
  telemetryCases({
    client: () => createClient({ provider: { type: "sqlite", path: join(folder, "queues.db") } }),
    system: "sqlite",
    network: false,
  });
});

import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SpanKind } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { runToEnd } from "../support/finished-process.js";
import { only, startSdk } from "./otel.js";

const children: ChildProcess[] = [];
const folder = mkdtempSync(join(tmpdir(), "qr-telemetry-processes-"));
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(folder, { recursive: true, force: true });
});

const child = (name: string) => fileURLToPath(new URL(`./children/${name}`, import.meta.url));

describe("telemetry across processes", () => {
  it("a consumer's process span in another process is the child of the send span that made its message", async () => {
    const sdk = startSdk();
    try {
      const path = join(folder, "queues.db");
      const client = await createClient({ provider: { type: "sqlite", path } });
      await client.admin.createQueue("orders");
      await client.sendMessage("orders", "order 42");
      await client.close();
      const send = only(sdk.spans(), "send orders");

      const ran = await runToEnd(["--import", "tsx", child("consume-one.ts"), path, "orders"], {
        env: process.env,
        children,
      });
      expect(ran.stderr).toBe("");
      expect(JSON.parse(ran.stdout)).toEqual({
        name: "process orders",
        kind: SpanKind.CONSUMER,
        traceId: send.spanContext().traceId,
        parentSpanId: send.spanContext().spanId,
      });
    } finally {
      await sdk.close();
    }
  });

  it("without @opentelemetry/api installed, a client sends, receives and consumes as ever and adds no attribute", async () => {
    const ran = await runToEnd(
      ["--import", "tsx", "--import", child("hide-api.mjs"), child("without-api.ts")],
      { env: process.env, children },
    );
    expect(ran.stderr).toBe("");
    expect(JSON.parse(ran.stdout)).toEqual({
      apiLoads: false,
      attributes: { tenant: "acme" },
      handled: ["a", "b"],
    });
  });
});

import type { QueueConfig, TelemetryOption } from "../../src/index.js";
import { createClient } from "../../src/index.js";
import { type Measurement, measure, temporaryFile } from "../lib.js";

/** The providers the suite runs on. */
export type LoopProvider = "memory" | "sqlite";

const QUEUE = "bench";
const BODY = JSON.stringify({ order: 42, sku: "A-1", qty: 3 });

/**
 * `count` messages one at a time through a fresh client of `provider`: send one, receive it,
 * complete it, again (the shape where telemetry's per-operation cost shows most).
 */
export async function sendReceiveComplete(
  name: string,
  provider: LoopProvider,
  telemetry: TelemetryOption,
  count: number,
): Promise<Measurement> {
  const file = provider === "sqlite" ? temporaryFile("telemetry.db") : undefined;
  const config: QueueConfig = {
    provider: file === undefined ? { type: "memory" } : { type: "sqlite", path: file.path },
    telemetry,
  };
  const client = await createClient(config);
  try {
    await client.admin.createQueue(QUEUE);
    // Warm: the first thousand run before the measurement, so every contender is measured at its speed.
    for (let i = 0; i < 1_000; i++) await once(client);
    return await measure(name, count, async () => {
      for (let i = 0; i < count; i++) await once(client);
    });
  } finally {
    await client.close();
    file?.remove();
  }
}

async function once(client: Awaited<ReturnType<typeof createClient>>): Promise<void> {
  await client.sendMessage(QUEUE, BODY);
  const message = await client.receiveMessage(QUEUE);
  await client.completeMessage(message!.receiptHandle);
}

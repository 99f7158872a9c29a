// A consumer in a process of its own: its own SDK, one message of a SQLite queue handled, then
// the process span printed as one JSON line (trace id, parent span id, name, kind).
import { createClient } from "../../../src/index.js";
import { startSdk } from "../otel.js";

const [path, queue] = process.argv.slice(2) as [string, string];
const sdk = startSdk();
const client = await createClient({ provider: { type: "sqlite", path } });
await new Promise<void>((resolve) => {
  const consumer = client.consume(queue, async () => {
    resolve();
  });
  void consumer;
});
await client.close();
const span = sdk.spans().find((each) => each.name === `process ${queue}`);
console.log(
  JSON.stringify({
    name: span?.name,
    kind: span?.kind,
    traceId: span?.spanContext().traceId,
    parentSpanId: span?.parentSpanContext?.spanId,
  }),
);
await sdk.close();

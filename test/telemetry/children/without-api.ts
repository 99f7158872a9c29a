// A client in a process where @opentelemetry/api cannot be loaded: it sends, receives and
// consumes as ever, and prints what it saw as one JSON line.
import { createClient } from "../../../src/index.js";

let apiLoads: boolean;
try {
  await import("@opentelemetry/api");
  apiLoads = true;
} catch {
  apiLoads = false;
}
const client = await createClient("memory:");
await client.sendMessage("q", { body: "hello", attributes: { tenant: "acme" } });
const message = await client.receiveMessage("q");
await client.completeMessage(message!.receiptHandle);
await client.sendMessages("q", ["a", "b"]);
const handled: string[] = [];
await new Promise<void>((resolve) => {
  const consumer = client.consume("q", async (each) => {
    handled.push(each.text());
    if (handled.length === 2) resolve();
  });
  void consumer;
});
await client.close();
console.log(JSON.stringify({ apiLoads, attributes: message!.attributes, handled: handled.sort() }));

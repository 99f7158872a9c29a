import { describe, expect, it } from "vitest";
import {
  type BatchEntryResult,
  type OperationContext,
  type OutgoingMessage,
  QueueError,
  StandardQueueClient,
  VirtualClock,
} from "../../src/index.js";
import { createMemoryProvider } from "../../src/providers/memory/memory-provider.js";
import { FailingProvider } from "../../src/testing/index.js";

async function memory(clock: VirtualClock) {
  return createMemoryProvider({ type: "memory", clock }, { createQueues: true });
}

/** A memory provider whose sendMessages refuses the entries whose body says so. */
class PickyProvider extends FailingProvider {
  batches: number[] = [];
  override async sendMessages(
    queue: string,
    messages: readonly OutgoingMessage[],
    context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    this.batches.push(messages.length);
    const verdicts = messages.map((message): QueueError | undefined => {
      const text = Buffer.from(message.body).toString();
      if (text.startsWith("refuse")) return new QueueError("Validation", `refused ${text}`);
      if (text.startsWith("flaky") && this.batches.length === 1)
        return new QueueError("Throttled", "try again");
      return undefined;
    });
    const accepted = messages.filter((_, index) => verdicts[index] === undefined);
    const sent = accepted.length === 0 ? [] : await super.sendMessages(queue, accepted, context);
    return verdicts.map((error) => (error === undefined ? sent.shift()! : { ok: false, error }));
  }
}

describe("StandardQueueClient", () => {
  it("splits a batch to the provider's limit and keeps the order of ids", async () => {
    const clock = new VirtualClock();
    const provider = new PickyProvider(await memory(clock));
    const client = new StandardQueueClient(provider, { clock });
    const ids = await client.sendMessages(
      "q",
      Array.from({ length: 250 }, (_, i) => `m${i}`),
    );
    expect(provider.batches).toEqual([100, 100, 50]);
    expect(ids).toHaveLength(250);
    const first = await client.receiveMessages("q", 3);
    expect(first.map((message) => message.messageId)).toEqual(ids.slice(0, 3));
    await client.close();
  });

  it("reports a partial batch failure entry by entry, after retrying the transient entries", async () => {
    const clock = new VirtualClock();
    const provider = new PickyProvider(await memory(clock));
    const client = new StandardQueueClient(provider, { clock });
    const error = await client
      .sendMessages("q", ["a", "refuse-b", "flaky-c", "d"])
      .catch((thrown: unknown) => thrown);
    expect(QueueError.is(error, "PartialBatchFailure")).toBe(true);
    const results = (error as QueueError).results!;
    expect(results.map((result) => result.ok)).toEqual([true, false, true, true]);
    expect((results[1] as { error: QueueError }).error.message).toContain("refused refuse-b");
    expect(provider.batches).toEqual([4, 1]);
    expect((await client.receiveMessages("q", 10)).map((message) => message.text())).toEqual([
      "a",
      "d",
      "flaky-c",
    ]);
    await client.close();
  });

  it("fails a call that outlives its deadline with Timeout, then retries it", async () => {
    const clock = new VirtualClock();
    const provider = new FailingProvider(await memory(clock));
    let hangs = 1;
    const original = provider.completeMessage.bind(provider);
    provider.completeMessage = (receipt, context) =>
      hangs-- > 0 ? new Promise(() => undefined) : original(receipt, context);
    const client = new StandardQueueClient(provider, {
      clock,
      timeouts: { operationMs: 1_000 },
      retryPolicy: { initialDelayMs: 10, jitter: false },
    });
    await client.sendMessage("q", "slow");
    const message = await client.receiveMessage("q");
    const completing = client.completeMessage(message!.receiptHandle);
    await clock.advance(1_000);
    await clock.advance(10);
    await completing;
    expect(client.metrics.retries).toBe(1);
    expect(await client.receiveMessage("q")).toBeNull();
    await client.close();
  });

  it("ends waiting receives at once when closed, and refuses calls afterwards", async () => {
    const clock = new VirtualClock();
    const client = new StandardQueueClient(await memory(clock), { clock });
    const waiting = client.receiveMessage("q", 60_000);
    await client.close();
    expect(await waiting).toBeNull();
    await expect(client.sendMessage("q", "late")).rejects.toMatchObject({ code: "ClientClosed" });
    await expect(client.close()).resolves.toBeUndefined();
  });

  it("lets the caller abort a wait with a signal", async () => {
    const clock = new VirtualClock();
    const client = new StandardQueueClient(await memory(clock), { clock });
    const controller = new AbortController();
    const waiting = client.receiveMessages("q", 5, 60_000, { signal: controller.signal });
    controller.abort();
    expect(await waiting).toEqual([]);
    await client.close();
  });

  it("does not repeat NoSessionAvailable: it is the answer to the wait", async () => {
    const clock = new VirtualClock();
    const provider = new FailingProvider(await memory(clock));
    const client = new StandardQueueClient(provider, { clock });
    await client.admin.createQueue("s.fifo");
    const accepting = client.acceptSession("s.fifo", undefined, 500).catch((error: unknown) => error);
    await clock.advance(500);
    expect(QueueError.is(await accepting, "NoSessionAvailable")).toBe(true);
    expect(provider.calls.acceptSession).toBe(1);
    await client.close();
  });

  it("checks receipts: another provider's receipt is InvalidReceipt", async () => {
    const clock = new VirtualClock();
    const client = new StandardQueueClient(await memory(clock), { clock });
    await expect(client.completeMessage("qr1:sqs:1:q:abc")).rejects.toMatchObject({ code: "InvalidReceipt" });
    await client.close();
  });
});

import { describe, test } from "vitest";
import { Advance, Receive, Send, Settle, Stats } from "../../src/testing/model/commands.js";
import { replayAgainstModel } from "../../src/testing/model/index.js";
import { engineProviders } from "./engine-providers.js";

const providers = engineProviders();

/*
 * The first disagreement the model runs found, kept as regression tests of their shrunk
 * sequences. The engine applied time to a queue only when that queue itself was read: a message
 * whose lock ended with its deliveries used up, or whose time to live ended, moved (or was
 * dropped) only when its own queue was next read, so a dead-letter queue read first did not have
 * it yet (semantics C21: it moves "by itself"), and a queue's deadLettered count still held an
 * expired dead letter (C23). Now a read of a dead-letter queue first moves what came due in the
 * queues that dead-letter into it, and the count clears expired dead letters first.
 */
describe.each(Object.keys(providers))(
  "dead letters do not wait for their source queue to be read: %s",
  (name) => {
    const makeClient = providers[name]!;

    // Was: the model's receive(qa-dlq) returned m1 (MaxDeliveryCountExceeded); the provider's [] until qa was read.
    test("C21 a message out of deliveries is in the dead-letter queue once its lock ends", () =>
      replayAgainstModel(makeClient, { maxDeliveryCount: 1, lockDurationMs: 1_000 }, [
        new Send("qa", {}),
        new Receive("qa", 1),
        new Advance({ kind: "fixed", ms: 1_000 }),
        new Receive("qa-dlq", 1),
      ]));

    // Was: the model's stats(qa-dlq) active 1; the provider's 0 (m1 stayed where it was until qa was read).
    test("C21 the dead-letter queue's counts include it too", () =>
      replayAgainstModel(makeClient, { maxDeliveryCount: 1, lockDurationMs: 1_000 }, [
        new Send("qa", {}),
        new Receive("qa", 1),
        new Advance({ kind: "fixed", ms: 1_000 }),
        new Stats("qa-dlq"),
      ]));

    // Was: the model's stats(qa).deadLettered 0 (the dead letter expired); the provider's 1 until qa-dlq was read.
    test("C23 an expired message is no longer counted in deadLettered", () =>
      replayAgainstModel(makeClient, {}, [
        new Send("qa-dlq", { timeToLiveMs: 1 }),
        new Advance({ kind: "fixed", ms: 5_000 }),
        new Stats("qa"),
      ]));

    // Reading the source queue first, as before, still agrees.
    test("after the source queue is read, the dead-letter queue agrees", () =>
      replayAgainstModel(makeClient, { maxDeliveryCount: 1, lockDurationMs: 1_000 }, [
        new Send("qa", {}),
        new Receive("qa", 1),
        new Advance({ kind: "fixed", ms: 1_000 }),
        new Stats("qa"),
        new Stats("qa-dlq"),
        new Receive("qa-dlq", 1),
        new Settle(0, { kind: "complete" }, true),
      ]));
  },
);

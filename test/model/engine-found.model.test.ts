import { describe, test } from "vitest";
import { Advance, Receive, Send, SendBatch } from "../../src/testing/model/commands.js";
import { replayAgainstModel } from "../../src/testing/model/index.js";
import { engineProviders } from "./engine-providers.js";

const providers = engineProviders();

/*
 * Shrunk counterexamples of the runs with FIFO queues, sessions, batches and a peek of every
 * queue after each step, kept as regression tests (replayed with the state compared after each
 * step, as the runs do).
 */
describe.each(Object.keys(providers))("found by the model: %s", (name) => {
  const makeClient = providers[name]!;

  // Was: the peek left out m1 (its time to live had ended) while a receiver still held it; the
  // model, the counts (inFlight 1) and a complete by that receiver all say it is there.
  test("a held message whose time to live ended still shows in a peek, in flight", () =>
    replayAgainstModel(
      makeClient,
      {},
      [new Send("qa", { timeToLiveMs: 1 }), new Receive("qa", 1), new Advance({ kind: "fixed", ms: 5_000 })],
      { compareState: true },
    ));

  // Was: a batch with an entry refused (no session on a FIFO queue) lost the ids of the entries
  // that went, so a repeat of their deduplication id could not be checked against the original.
  test("a partly refused batch sends the rest, and a repeat of their deduplication id answers the original", () =>
    replayAgainstModel(
      makeClient,
      {},
      [
        new SendBatch("qf.fifo", [{}, { deduplicationId: "d2", sessionId: "s1" }]),
        new Send("qf.fifo", { deduplicationId: "d2", sessionId: "s1" }),
      ],
      { compareState: true },
    ));
});

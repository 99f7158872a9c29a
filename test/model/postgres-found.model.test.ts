import { describe, test } from "vitest";
import {
  AcceptSession,
  Advance,
  QueueAdminCall,
  Receive,
  Redrive,
  Send,
  SendBatch,
  Settle,
  UseSession,
} from "../../src/testing/model/commands.js";
import { POSTGRES_SEMANTICS, postgresPerRun } from "./postgres-per-run.js";
import { replayer } from "./replay.js";

const replay = replayer(postgresPerRun(), POSTGRES_SEMANTICS);

/* The shrunk counterexamples of the postgres provider's runs, kept as regression tests. */
describe("found by the model: postgres", () => {
  // Was: stats said active 1, deadLettered 0: the counts did not apply what time had done (C23).
  test("a message whose time to live ended is counted dead-lettered, not active", () =>
    replay({}, [new Send("qa", { timeToLiveMs: 1 }), new Advance({ kind: "fixed", ms: 31_000 })]));

  // Was: a peek left out m1, which a receiver still held after its time to live ended.
  test("a held message whose time to live ended still shows in a peek", () =>
    replay({}, [
      new Send("qa", { timeToLiveMs: 1 }),
      new Receive("qa", 1),
      new Advance({ kind: "fixed", ms: 5_000 }),
    ]));

  // Was: redrive moved 1: a message still delayed went too (every other provider moves what a receive could take).
  test("a redrive leaves a message that is still delayed", () =>
    replay({}, [new Send("qa", { delayMs: 2_500 }), new Redrive("qa", "qf.fifo")]));

  // Was: Validation for the whole batch when no message had a session; now each fails on its own.
  test("a FIFO batch whose every message lacks a session fails per message", () =>
    replay({}, [new SendBatch("qf.fifo", [{}, {}])]));

  // Was: Unsupported (the queue has no dead-letter queue) before the receipt was judged; every other
  // provider says first that a receipt whose lock was given back is invalid.
  test("dead-lettering with a spent receipt is InvalidReceipt, dead-letter queue or not", () =>
    replay({ deadLetterQueue: null }, [
      new Send("qa", {}),
      new Receive("qa", 1),
      new Settle(0, { kind: "abandon", delayMs: undefined }, false),
      new Settle(0, { kind: "deadLetter", reason: "bad", description: undefined }, false),
    ]));

  // Was: deadLettered 0: with qa-dlq deleted, the expired message was dropped; a dead-letter
  // queue another queue names can no longer be deleted.
  test("a dead-letter queue that a queue names is not deleted, so no dead letter is lost", () =>
    replay({}, [
      new QueueAdminCall("deleteQueue", "qa-dlq"),
      new Send("qa", { timeToLiveMs: 1 }),
      new Advance({ kind: "nextDue", offset: 0 }),
    ]));

  // Was: delayed 1, deadLettered 0: an abandon with a delay held a message out of deliveries until
  // the delay ended; it is dead-lettered at once, as on every provider.
  test("abandoning with a delay a message out of deliveries dead-letters it at once", () =>
    replay({ maxDeliveryCount: 1 }, [
      new Send("qa", {}),
      new Receive("qa", 1),
      new Settle(0, { kind: "abandon", delayMs: 1_000 }, false),
    ]));

  // Was: the renewal succeeded and moved the message's lock past its session's.
  test("a message of an accepted session cannot have its own lock renewed", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new AcceptSession("qf.fifo", undefined),
      new UseSession(0, { kind: "receive", max: 1 }),
      new Settle(0, { kind: "renew" }, false),
    ]));

  // Was: active 1, deadLettered 0: closing the session made its held message ready again although
  // its one delivery was used up; a close releases a message as an abandon does.
  test("closing a session dead-letters a held message out of deliveries", () =>
    replay(
      {},
      [
        new Send("qf.fifo", { sessionId: "s1" }),
        new AcceptSession("qf.fifo", undefined),
        new UseSession(0, { kind: "receive", max: 1 }),
        new UseSession(0, { kind: "close" }),
      ],
      { maxDeliveryCount: 1 },
    ));

  // Not fixed yet (found by a campaign of 200 runs, fixed seed): the provider dead-letters with
  // TTLExpired, where the engine and the model say MaxDeliveryCountExceeded, a message whose lock
  // ends with its deliveries used up and its time to live ended while it was held (its expire()
  // runs before make_due_ready()). The semantics name no order for the two reasons; C23 speaks of
  // a message that expires before it is received. This test fails while they disagree.
  test.fails("a held message out of deliveries and out of time is dead-lettered for its deliveries", () =>
    replay({ maxDeliveryCount: 1 }, [
      new Send("qa", { timeToLiveMs: 1 }),
      new Receive("qa", 1),
      new Advance({ kind: "fixed", ms: 31_000 }),
      new Receive("qa-dlq", 1),
    ]));
});

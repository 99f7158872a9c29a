import { describe, test } from "vitest";
import {
  Advance,
  CreateQueue,
  QueueAdminCall,
  Receive,
  Redrive,
  Send,
  SendBatch,
  Settle,
} from "../../src/testing/model/commands.js";
import { replayer } from "./replay.js";
import { SQS_SEMANTICS, sqsOverServe } from "./sqs-over-serve.js";

const replay = replayer(sqsOverServe, SQS_SEMANTICS);

/* The shrunk counterexamples of the sqs provider's runs over `queue-runtime serve`, kept as regression tests. */
describe("found by the model: sqs over serve", () => {
  // Was: m11 waited the queue's 1 s delay (stats: delayed 11, active 0): the provider sent no
  // DelaySeconds for an explicit 0, so the queue's delay applied. Now 0 is sent and overrides it.
  test("an explicit delay of 0 overrides the queue's delay", () =>
    replay({ defaultDelayMs: 1_000 }, [new Send("qa", {}), new Send("qa", { delayMs: 0 })]));

  // Was: the redriven message waited qa's 1 s delay (stats: delayed 1): the provider's copy named no
  // delay, so the queue's applied; a copy now goes with an explicit 0, as the engine moves it.
  test("a redriven message is not held back by its queue's delay", () =>
    replay({ defaultDelayMs: 1_000 }, [new SendBatch("qa-dlq", [{}]), new Redrive("qa-dlq", undefined)]));

  // Was: QueueNotFound (the provider read the deleted queue's settings first); every other provider
  // and SQS's own ChangeMessageVisibility say the receipt is invalid.
  test("renewing a receipt of a deleted queue is InvalidReceipt", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new Receive("qf.fifo", 1),
      new QueueAdminCall("deleteQueue", "qf.fifo"),
      new Settle(0, { kind: "renew" }, false),
    ]));

  // Was: Unsupported from a second client that had read the queue's settings before it was
  // deleted (a cached "no dead-letter queue"); a dead-letter now reads them afresh.
  test("dead-lettering a receipt of a deleted queue is InvalidReceipt, whatever a client read before", () =>
    replay(
      {},
      [
        new Send("qf.fifo", { sessionId: "s1" }),
        new Receive("qf.fifo", 1),
        new Settle(0, { kind: "deadLetter", reason: "bad", description: undefined }, true),
        new QueueAdminCall("deleteQueue", "qf.fifo"),
        new Settle(0, { kind: "deadLetter", reason: "bad", description: undefined }, true),
      ],
      { deadLetterQueue: null },
    ));

  // SQS would take a receipt whose lock ended (the visibility change succeeds, the delete deletes),
  // so the provider copied a message another receiver may hold into the dead-letter queue; it now
  // refuses, and the message stays for the next receive.
  test("dead-lettering after the lock ended is InvalidReceipt and loses nothing", () =>
    replay({ lockDurationMs: 1_000 }, [
      new Send("qa", {}),
      new Receive("qa", 1),
      new Advance({ kind: "fixed", ms: 1_000 }),
      new Settle(0, { kind: "deadLetter", reason: "bad", description: undefined }, false),
      new Receive("qa", 1),
    ]));

  // Was (a harness fault, not the provider's): the model took both of s2's messages in one
  // receive, the provider m10 only. SQS receives 10 at a time, and a group one call took is locked
  // for the next; the model now receives in the client's runs too.
  test("a receive of more than 10 takes a group's later messages only when no earlier call took the group", () =>
    replay({}, [
      new SendBatch("qa", [
        {},
        { sessionId: "s1" },
        ...Array.from({ length: 7 }, () => ({})),
        { sessionId: "s2" },
        { sessionId: "s2" },
      ]),
      new Redrive("qa", "qf.fifo"),
      new Receive("qf.fifo", 1),
    ]));

  // Was: the dead letter came without its reason: `serve` showed a message sent with attributes
  // (here the session id a standard queue carries as one) only as sent, not what the engine added.
  test("a dead letter sent with attributes still carries its reason", () =>
    replay({ maxDeliveryCount: 1 }, [
      new SendBatch("qa", [{ sessionId: "s1" }]),
      new Redrive("qa", undefined),
      new Receive("qa-dlq", 1),
    ]));

  // Was (the model's fault): the model let the receiver complete m1 after its own redrive had
  // received m1 again and moved it; the provider, which remembers that, refuses the old receipt.
  test("a receipt is spent once a redrive by the same client received its message again", () =>
    replay({}, [
      new Send("qa", {}),
      new CreateQueue("qb", {}),
      new Receive("qa", 1),
      new Settle(0, { kind: "abandon", delayMs: undefined }, true),
      new Redrive("qa", "qb"),
      new Settle(0, { kind: "complete" }, false),
    ]));
});

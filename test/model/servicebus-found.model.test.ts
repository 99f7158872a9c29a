import { describe, test } from "vitest";
import {
  AcceptSession,
  Advance,
  CreateQueue,
  QueueAdminCall,
  Receive,
  Redrive,
  Send,
  SendBatch,
  Settle,
  Stats,
  UseSession,
} from "../../src/testing/model/commands.js";
import { replayer } from "./replay.js";
import { SERVICE_BUS_SEMANTICS, serviceBusOverServe } from "./servicebus-over-serve.js";

const replay = replayer(serviceBusOverServe, SERVICE_BUS_SEMANTICS);
const FIFO_DEAD_LETTERS = "qf.fifo/$deadletterqueue";

/* The shrunk counterexamples of the servicebus provider's runs (over `serve --servicebus`), kept as regression tests. */
describe("found by the model: servicebus", () => {
  // Was: Provider: the server let a client reach the engine queue that holds qf.fifo's dead letters by its own name.
  test("a queue's dead letters are reached only through its sub-queue", () =>
    replay({}, [new Send("qf-dlq.fifo", {})]));

  // Was: NoSessionAvailable for a missing queue, and SessionLocked (transient) for a queue without sessions.
  test("accepting a session of a missing queue or one without sessions says so", () =>
    replay({}, [
      new AcceptSession("qa", "s2"),
      new QueueAdminCall("deleteQueue", "qf.fifo"),
      new AcceptSession("qf.fifo", undefined),
      new AcceptSession("qf.fifo", "s1"),
    ]));

  // Was: the redrive moved 0 and succeeded; with dead letters it would have taken them off first.
  test("a redrive to a queue that does not exist fails before it moves anything", () =>
    replay({}, [new Redrive(FIFO_DEAD_LETTERS, "qb")]));

  // Was: Provider for the whole call; then 2 messages stored where the model has 1 (the server kept
  // what it could of a batch it refused).
  test("a batch to a session queue fails per message without a session, and stores the rest once", () =>
    replay({}, [
      new SendBatch("qf.fifo", [{}]),
      new SendBatch("qf.fifo", [...Array.from({ length: 10 }, () => ({})), { sessionId: "s1" }]),
    ]));

  // Was: QueueNotFound answered as per-message Validation (the queue was remembered as a session queue).
  test("a batch to a session queue deleted since fails with QueueNotFound", () =>
    replay({}, [
      new Send("qf.fifo", {}),
      new QueueAdminCall("deleteQueue", "qf.fifo"),
      new SendBatch("qf.fifo", [{}]),
      new Send("qf.fifo", {}),
    ]));

  // Was: Provider: a purge read a session queue through a plain receiver, which Service Bus refuses.
  test("a purge of a session queue drains each free session", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new Send("qf.fifo", { sessionId: "s2" }),
      new QueueAdminCall("purge", "qf.fifo"),
    ]));

  // Was: Provider: the delay was kept by renewing the message's lock, which is its session's.
  test("a message of a borrowed session abandoned with a delay is kept until the delay ends", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new Receive("qf.fifo", 1),
      new Settle(0, { kind: "abandon", delayMs: 2_500 }, false),
    ]));

  // Was: Provider: renewing a session's message, by its receiver or by text from a second client.
  test("a message of a session cannot have its own lock renewed", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new Receive("qf.fifo", 1),
      new Settle(0, { kind: "renew" }, false),
      new Send("qf.fifo", { sessionId: "s2" }),
      new AcceptSession("qf.fifo", "s2"),
      new UseSession(0, { kind: "receive", max: 1 }),
      new Settle(0, { kind: "renew" }, true),
    ]));

  // Was: ConnectionFailed: the links made before the queue was deleted reported its absence as a lost connection.
  test("a receive and a send after the queue was deleted fail with QueueNotFound", () =>
    replay({}, [
      new Receive("qa", 1),
      new Send("qa", {}),
      new QueueAdminCall("deleteQueue", "qa"),
      new Receive("qa", 1),
      new Send("qa", {}),
      new Stats("qa"),
    ]));

  // Was: QueueNotFound for a peek of qa/$deadletterqueue: a link attached before qa was deleted and
  // made again still pointed at the old queue's dead-letter queue.
  test("links made before a queue was deleted and made again reach the new queue", () =>
    replay({}, [
      new Send("qa", {}),
      new QueueAdminCall("deleteQueue", "qa"),
      new CreateQueue("qa", { deduplicationWindowMs: 2_000 }),
      new Send("qa", { deduplicationId: "d1" }),
      new Send("qa", { deduplicationId: "d1" }),
      new QueueAdminCall("deleteQueue", "qf.fifo"),
      new CreateQueue("qf.fifo", {}),
    ]));

  // Was: QueueNotFound: a receipt whose message carries a session id (on a standard queue) kept
  // that code once its queue was deleted; a receipt of a deleted queue is invalid.
  test("renewing a receipt of a deleted queue is InvalidReceipt, session id or not", () =>
    replay({}, [
      new SendBatch("qa", [{ sessionId: "s1" }]),
      new Receive("qa", 1),
      new QueueAdminCall("deleteQueue", "qa"),
      new Settle(0, { kind: "renew" }, true),
    ]));

  // A message locked by a session (here one a plain receive borrowed) can be kept for a delay
  // only by the client holding the session: from a second client, Unsupported.
  test("an abandon with a delay of a session's message from a second client is Unsupported", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new Receive("qf.fifo", 1),
      new Settle(0, { kind: "abandon", delayMs: 1_000 }, true),
      new Settle(0, { kind: "complete" }, false),
    ]));

  // Was: SessionLockLost: settling a session's message after the session's lock ended; a receipt
  // whose lock ended is invalid, whatever lock it was.
  test("completing a session's message after the session's lock ended is InvalidReceipt", () =>
    replay({}, [
      new AcceptSession("qf.fifo", "s2"),
      new SendBatch("qf.fifo", [{ sessionId: "s2" }, {}]),
      new UseSession(0, { kind: "receive", max: 1 }),
      new Advance({ kind: "lockEnd", receiptIndex: 0, offset: 0 }),
      new Settle(0, { kind: "complete" }, false),
    ]));

  // Was: Unsupported where the model says InvalidReceipt: a second client abandoned m1, and the
  // receiver's renewal was refused as a session's message before its lock was judged. The
  // borrowed session stays held: its receiver never heard of the settle.
  test("a renewal of a session's message settled by another client is InvalidReceipt", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new Receive("qf.fifo", 1),
      new Settle(0, { kind: "abandon", delayMs: undefined }, true),
      new Settle(0, { kind: "renew" }, false),
      new AcceptSession("qf.fifo", "s1"),
    ]));

  // Was (the model's fault): the model received from a session queue's dead-letter sub-queue by
  // borrowing a session, which only a queue requiring sessions does; the sub-queue's messages
  // have locks of their own, which a second client can keep for a delay.
  test("a dead letter of a session queue has a lock of its own", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new AcceptSession("qf.fifo", undefined),
      new UseSession(0, { kind: "receive", max: 1 }),
      new Settle(0, { kind: "deadLetter", reason: "bad", description: undefined }, false),
      new Receive(FIFO_DEAD_LETTERS, 1),
      new Settle(0, { kind: "abandon", delayMs: 1_000 }, true),
    ]));

  // Was (found by the runs with topics): createQueue at a subscription's path failed with
  // Provider, and deleteQueue of it succeeded; docs/topics.md refuses both (Validation), as the
  // engine and postgres do.
  test("createQueue and deleteQueue refuse a subscription's path", () =>
    replay(
      {},
      [new CreateQueue("ta/subscriptions/a", {}), new QueueAdminCall("deleteQueue", "ta/subscriptions/a")],
      {},
      {},
    ));

  // Was (the model's fault, found by the runs with topics): a redrive of a subscription's
  // dead-letter queue is Unsupported on Service Bus, which sends only to topics
  // (capabilities.subscriptionRedrive false, contract C92 skipped); the model now says so too.
  test("a redrive of a subscription's dead letters is Unsupported", () =>
    replay({}, [new Redrive("ta/subscriptions/a/$deadletterqueue", undefined)], {}, {}));
});

import { describe, test } from "vitest";
import {
  AcceptSession,
  QueueAdminCall,
  Receive,
  Redrive,
  Send,
  SendBatch,
  Settle,
  UseSession,
} from "../../src/testing/model/commands.js";
import { RABBITMQ_SEMANTICS, rabbitMqPerRun } from "./rabbitmq-per-run.js";
import { replayer } from "./replay.js";

const replay = replayer(rabbitMqPerRun("found"), RABBITMQ_SEMANTICS);
const abandon = { kind: "abandon", delayMs: undefined } as const;

/* The shrunk counterexamples of the rabbitmq provider's runs, kept as regression tests. */
describe("found by the model: rabbitmq", () => {
  // Was: purged 0: the abandoned message had come back to this client's consumer, which held it unseen.
  test("a purge removes what this client's consumer holds unseen", () =>
    replay({}, [
      new Receive("qa", 1),
      new Send("qa", {}),
      new Receive("qa", 1),
      new Settle(0, abandon, false),
      new QueueAdminCall("purge", "qa"),
    ]));

  // Was: moved 0: the message waited in this client's consumer, where a redrive's basic.get cannot see it.
  test("a redrive moves what this client's consumer holds unseen", () =>
    replay({}, [
      new Receive("qa", 1),
      new Receive("qa", 1),
      new Send("qa", {}),
      new Redrive("qa", "qf.fifo"),
    ]));

  // Was: a receive of qf.fifo found nothing: the message had gone to qf.fifo's own queue, which
  // sessions never read, and not to the session named after the queue it came from.
  test("a message without a session redriven to a FIFO queue joins the session of its source queue", () =>
    replay({}, [new Send("qa", {}), new Redrive("qa", "qf.fifo"), new Receive("qf.fifo", 1)]));

  // Was: NoSessionAvailable: a borrowed session stayed held after its receiver found its receipt
  // spent (another client had settled it by the receipt's text).
  test("a borrowed session is free once its receiver finds its receipt settled by another client", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new Receive("qf.fifo", 1),
      new Settle(0, abandon, true),
      new Settle(0, abandon, false),
      new AcceptSession("qf.fifo", undefined),
    ]));

  // Was: m1 again: the borrowed session ended when another client settled its message, which its
  // receiver does not hear of.
  test("a borrowed session stays held while its receiver has not settled its receipt", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new Receive("qf.fifo", 1),
      new Settle(0, abandon, true),
      new Receive("qf.fifo", 1),
    ]));

  // Was: nothing: the borrowed session was still being let go when the next receive asked (the
  // receiver's finding its receipt spent ended it without waiting for it).
  test("a borrowed session its receiver is done with is free when the receiver's call returns", () =>
    replay({}, [
      new Send("qf.fifo", { sessionId: "s1" }),
      new Receive("qf.fifo", 1),
      new Settle(0, abandon, true),
      new Settle(0, { kind: "deadLetter", reason: "bad", description: undefined }, true),
      new Settle(0, { kind: "renew" }, false),
      new Receive("qf.fifo", 1),
    ]));

  // Was: qf-dlq.fifo counted 1: the session let go of its message before the queue was gone, and the
  // broker dead-lettered it on its last delivery.
  test("deleting a queue whose session holds a message on its last delivery dead-letters nothing", () =>
    replay(
      {},
      [
        new SendBatch("qf.fifo", [{ sessionId: "s1" }]),
        new AcceptSession("qf.fifo", undefined),
        new UseSession(0, { kind: "receive", max: 1 }),
        new QueueAdminCall("deleteQueue", "qf.fifo"),
      ],
      { maxDeliveryCount: 1 },
    ));

  // Was: m2 first: the closed session's nack of m1 put it behind m2 (a quorum queue may put a
  // returned message last); what a session holds now goes back ahead of the rest, in order.
  test("a session closed with a message held gives it back before the messages sent after it", () =>
    replay(
      {},
      [
        new Send("qf.fifo", { sessionId: "s1" }),
        new AcceptSession("qf.fifo", undefined),
        new UseSession(0, { kind: "receive", max: 1 }),
        new Send("qf.fifo", { sessionId: "s1" }),
        new UseSession(0, { kind: "close" }),
        new Receive("qf.fifo", 1),
      ],
      { deadLetterQueue: null },
    ));

  // Was: active 1, deadLettered 0: the message a closed session held on its last delivery went
  // back as a copy, where the broker's own return would have dead-lettered it.
  test("a session closed holding a message on its last delivery dead-letters it", () =>
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

  // Was: 7 of 11: a basic.get found the queue empty while the deliveries the consumer had just been
  // given were still on their way.
  test("a receive in a loop takes every message sent before it", () =>
    replay({}, [
      new Receive("qa", 1),
      new SendBatch(
        "qa",
        Array.from({ length: 11 }, () => ({})),
      ),
      new Receive("qa", 2),
    ]));

  // Was: active 2 of 3 in the stats right after the abandon: a quorum queue counts each delivery a
  // basic.get holds as a consumer, so the abandon took this client's own gets for another client's
  // consumer and did not wait for the broker to count the message back.
  test("an abandon of a message basic.get took is counted back before it resolves", async () => {
    for (let run = 0; run < 5; run++)
      await replay({}, [
        new SendBatch("qa", [{}, {}, {}]),
        new Receive("qa", 1),
        new Settle(1, abandon, false),
      ]);
  });
});

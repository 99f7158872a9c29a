// The Service Bus endpoint under garbage: raw TCP clients send what no SDK sends (broken headers
// and frames, frames out of order, performatives with wrong fields, seeded random mutations of a
// whole conversation, clients that vanish mid-way). After every case the server must have closed
// the connection or answered it, forgotten it once the client is gone, reported only errors of
// the kinds expected, and still serve the real SDK; the keeper queue keeps its messages.
// The regressions at the end are the defects this fuzz found, each named for what now holds.
import { randomInt } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { toEngineMessage } from "../../../src/server/servicebus/message-mapping.js";
import { BOUND_MS, describeError, FuzzBench, HOLD_MS, KEPT_BODIES, kindOf } from "./fuzz/bench.js";
import { Dice, mutant, RANDOM_QUEUE } from "./fuzz/mutate.js";
import {
  AMQP_HEADER,
  attachReceiver,
  attachSender,
  BATCH_FORMAT,
  CLOSE,
  CODE,
  conditionOf,
  dataSections,
  described,
  encodeMessage,
  flow,
  frame,
  frames,
  NULL,
  openAndBegin,
  outcomeOf,
  putNamespaceToken,
  type RawConnection,
  repliesIn,
  SASL_HEADER,
  type ServerFrame,
  saslAnonymous,
  saslFrame,
  section,
  typed as t,
  terminus,
  transfer,
} from "./fuzz/wire.js";
import { createQueue } from "./harness.js";

// rhea writes what it cannot read to the console (the whole buffer, in hex): silenced here.
beforeEach(() => {
  vi.spyOn(console, "error").mockImplementation(() => undefined);
  vi.spyOn(console, "warn").mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** One raw connection and what the server must do with it. */
interface RawCase {
  readonly name: string;
  /** What the client sends (it may wait for the server's answers in between). */
  readonly send: (connection: RawConnection, bench: FuzzBench) => Promise<void> | void;
  /**
   * `closes`: the server must close the connection within {@link BOUND_MS}. `may wait`: the
   * server may keep waiting for bytes the client never sends (it is watched for {@link HOLD_MS},
   * then the client goes away and the server must let the connection go).
   */
  readonly server: "closes" | "may wait";
  /** What is wrong with what the server answered, if anything. */
  readonly answer?: (frames: readonly ServerFrame[], connection: RawConnection) => string | undefined;
}

/**
 * Runs `cases` one after the other on `bench`. After each: the server closed it (or may wait),
 * holds no socket of it, reported no error of its own code, and the SDK still sends and receives.
 * Resolves what went wrong, one line per problem, with the case's name.
 */
async function runCases(bench: FuzzBench, cases: readonly RawCase[]): Promise<string[]> {
  const problems: string[] = [];
  for (const one of cases) {
    const result = await bench.run(
      (connection) => one.send(connection, bench),
      one.server === "closes" ? BOUND_MS : HOLD_MS,
    );
    await bench.socketsSettled();
    if (one.server === "closes" && result.ending === "open")
      problems.push(`${one.name}: still open ${BOUND_MS} ms after the garbage`);
    const wrong = one.answer?.(result.frames, result.connection);
    if (wrong !== undefined) problems.push(`${one.name}: ${wrong}`);
    for (const error of result.errors)
      if (kindOf(error) === "server error")
        problems.push(`${one.name}: server error ${describeError(error)}`);
    try {
      await bench.healthy();
    } catch (error) {
      throw new Error(`after "${one.name}" the SDK is not served: ${String(error)}`);
    }
  }
  for (const leak of await bench.leaks()) problems.push(`leaked connection: ${JSON.stringify(leak)}`);
  return problems;
}

/** The end of every test: nothing leaked, the keeper queue holds its messages, the SDK is served (by a new client too unless `newClient` is false). */
async function finish(bench: FuzzBench, options: { newClient?: boolean } = {}): Promise<void> {
  const { keeper, leaks } = await bench.finish(options);
  expect(keeper).toEqual(KEPT_BODIES);
  expect(leaks).toEqual([]);
}

const names = (received: readonly ServerFrame[]) => received.map((one) => one.name);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's answer is a close (with `condition` when given). */
function closedWith(condition?: string) {
  return (received: readonly ServerFrame[]) => {
    const close = received.find((one) => one.name === "close");
    if (close === undefined) return `no close frame among ${names(received).join(",") || "nothing"}`;
    const got = conditionOf(close.fields.error);
    return condition === undefined || got === condition ? undefined : `closed with ${got}, not ${condition}`;
  };
}

/** The outcome the server's dispositions give each delivery id, as `id: outcome` (a range gives each id its state). */
function outcomes(received: readonly ServerFrame[]): string[] {
  const each: string[] = [];
  for (const one of received.filter((candidate) => candidate.name === "disposition")) {
    const first = Number(one.fields.first ?? 0);
    const last = Number(one.fields.last ?? first);
    for (let id = first; id <= Math.min(last, first + 100); id++)
      each.push(`${id}: ${outcomeOf(one.fields.state)}`);
  }
  return each;
}

/** A frame whose bytes are given after the 8-byte frame header (size, data offset 2, type, channel 0). */
function rawFrame(body: readonly number[], type = 0): Buffer {
  const header = Buffer.from([0, 0, 0, 0, 2, type, 0, 0]);
  const bytes = Buffer.concat([header, Buffer.from(body)]);
  bytes.writeUInt32BE(bytes.length, 0);
  return bytes;
}

/** Waits until the SASL outcome came. */
async function saslDone(connection: RawConnection): Promise<void> {
  connection.write(saslAnonymous());
  await connection.waitFor((one) => one.named("sasl_outcome").length > 0, 1_000);
}

/** Sends open and begin and waits for the server's begin. */
async function opened(connection: RawConnection, options: Parameters<typeof openAndBegin>[0] = {}) {
  connection.write(openAndBegin(options));
  await connection.waitFor((one) => one.named("begin").length > 0, 1_000);
}

/** Opens, puts a token for the namespace, and waits until the server attached the `$cbs` link. */
async function authorized(connection: RawConnection, bench: FuzzBench, options = {}): Promise<void> {
  connection.write(openAndBegin(options), putNamespaceToken(bench.key));
  await connection.waitFor((one) => one.named("attach").length > 0, 1_000);
}

/**
 * Waits (a second at most) for `count` frames named `name`, or for `disposition` the outcomes
 * of `count` deliveries, or for `reply` `count` whole replies; then closes politely.
 */
async function thenClose(connection: RawConnection, name: string, count: number): Promise<void> {
  const seen = (one: RawConnection) => {
    if (name === "disposition") return outcomes(one.frames).length;
    if (name === "reply") return repliesIn(one.frames).length;
    return one.named(name).length;
  };
  await connection.waitFor((one) => seen(one) >= count, 1_000);
  connection.write(CLOSE());
}

describe("the Service Bus endpoint under garbage on raw sockets", () => {
  it("garbage instead of the protocol header, a broken header, and garbage during and after SASL", async () => {
    const bench = await FuzzBench.start();
    const dice = new Dice(7);
    const cases: RawCase[] = [
      {
        name: "an HTTP request instead of the protocol header",
        send: (c) => c.write(Buffer.from("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")),
        server: "closes",
      },
      {
        name: "random bytes instead of the protocol header",
        send: (c) => c.write(Buffer.concat([Buffer.from([0xff]), dice.bytes(63)])),
        server: "closes",
      },
      {
        name: "a truncated header, then nothing",
        send: (c) => c.write(Buffer.from("AMQ")),
        server: "may wait",
      },
      {
        name: "a truncated header, then the socket ends",
        send: (c) => {
          c.write(AMQP_HEADER.subarray(0, 6));
          c.socket.end();
        },
        server: "closes",
      },
      {
        name: "an AMQP 0-9-1 header",
        send: (c) => c.write(Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1])),
        server: "closes",
      },
      {
        name: "a header with protocol id 2 (TLS)",
        send: (c) => c.write(Buffer.from([0x41, 0x4d, 0x51, 0x50, 2, 1, 0, 0])),
        server: "closes",
      },
      {
        name: "a header of AMQP 2.0",
        send: (c) => c.write(Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 2, 0, 0])),
        server: "closes",
      },
      {
        // The first four random bytes are a frame size the server waits for.
        name: "the AMQP header, then random bytes",
        send: (c) => c.write(AMQP_HEADER, dice.bytes(40)),
        server: "may wait",
      },
      {
        name: "the AMQP header, random bytes, then the socket ends",
        send: (c) => {
          c.write(AMQP_HEADER, dice.bytes(40));
          c.socket.end();
        },
        server: "closes",
      },
      {
        name: "the SASL header, then a SASL frame of garbage",
        send: (c) => c.write(SASL_HEADER, rawFrame([0x99, 0x98, 0x97, 0x96], 1)),
        server: "closes",
      },
      {
        name: "the SASL header, then an AMQP frame instead of a SASL one",
        send: (c) => c.write(SASL_HEADER, frame(0, frames.open({ container_id: "early" }))),
        server: "closes",
      },
      {
        name: "the SASL header, then random bytes, then the socket ends",
        send: (c) => {
          c.write(SASL_HEADER, dice.bytes(30));
          c.socket.end();
        },
        server: "closes",
      },
      {
        name: "a SASL init for a mechanism the server does not offer",
        send: (c) =>
          c.write(
            SASL_HEADER,
            saslFrame(frames.sasl_init({ mechanism: "PLAIN", initial_response: Buffer.from("\0u\0p") })),
          ),
        // The outcome is `auth` (1); the server then keeps the connection (it could close it).
        server: "may wait",
        answer: (received) => {
          const outcome = received.find((one) => one.name === "sasl_outcome");
          return outcome?.fields.code === 1
            ? undefined
            : `sasl outcome ${String(outcome?.fields.code)}, not 1`;
        },
      },
      {
        name: "a valid SASL exchange, then garbage instead of the AMQP header",
        send: async (c) => {
          await saslDone(c);
          c.write(Buffer.from("not AMQP at all"));
        },
        server: "closes",
      },
      {
        name: "a valid SASL exchange, the AMQP header, open, then a frame of an unknown performative",
        send: async (c) => {
          await saslDone(c);
          c.write(
            AMQP_HEADER,
            frame(0, frames.open({ container_id: "sasl" })),
            rawFrame([0x00, 0x53, 0xff, 0x45]),
          );
        },
        server: "closes",
      },
      {
        name: "a valid SASL exchange, the AMQP header, then random bytes and the socket ending",
        send: async (c) => {
          await saslDone(c);
          c.write(AMQP_HEADER, dice.bytes(30));
          c.socket.end();
        },
        server: "closes",
      },
      {
        // rhea's SASL layer reads the AMQP header sent ahead of the outcome as a frame of
        // 0x414d5150 bytes and waits for them: the connection never gets further (see the report).
        name: "a SASL init with the AMQP header and open pipelined behind it",
        send: (c) =>
          c.write(saslAnonymous(), AMQP_HEADER, frame(0, frames.open({ container_id: "pipelined" }))),
        server: "may wait",
      },
    ];
    expect(await runCases(bench, cases)).toEqual([]);
    await finish(bench);
  });

  it("garbage after a valid open: random bytes, impossible frame sizes, truncated frames", async () => {
    const bench = await FuzzBench.start();
    const dice = new Dice(11);
    const cases: RawCase[] = [
      {
        name: "random bytes after open",
        send: async (c) => {
          await opened(c);
          c.write(dice.bytes(64));
        },
        server: "may wait",
      },
      {
        name: "random bytes after open, then the socket ends",
        send: async (c) => {
          await opened(c);
          c.write(dice.bytes(64));
          c.socket.end();
        },
        server: "closes",
      },
      {
        name: "a frame of an unknown frame type",
        send: async (c) => {
          await opened(c);
          c.write(rawFrame([0x00, 0x53, 0x13, 0x45], 9));
        },
        server: "closes",
      },
      {
        // The server announces no max-frame-size of its own (rhea's default is 4 GiB): it
        // buffers what comes and waits for the rest.
        name: "a frame declaring 0xFFFFFFF0 bytes, then 1 MiB of them",
        send: async (c) => {
          await opened(c);
          c.write(Buffer.from([0xff, 0xff, 0xff, 0xf0, 2, 0, 0, 0]), Buffer.alloc(1_048_576, 0x45));
        },
        server: "closes",
      },
      {
        name: "a frame whose size (4) is smaller than its header",
        send: async (c) => {
          await opened(c);
          c.write(Buffer.from([0, 0, 0, 4, 2, 0, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0]));
        },
        server: "closes",
      },
      {
        name: "a frame of size 0",
        send: async (c) => {
          await opened(c);
          c.write(Buffer.alloc(12));
        },
        server: "closes",
      },
      {
        name: "a frame of size 7",
        send: async (c) => {
          await opened(c);
          c.write(Buffer.from([0, 0, 0, 7, 2, 0, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0]));
        },
        server: "closes",
      },
      {
        name: "a frame with data offset 1",
        send: async (c) => {
          await opened(c);
          c.write(Buffer.from([0, 0, 0, 12, 1, 0, 0, 0, 0x00, 0x53, 0x18, 0x45]));
        },
        server: "closes",
      },
      {
        name: "a frame with a data offset past its end",
        send: async (c) => {
          await opened(c);
          c.write(Buffer.from([0, 0, 0, 12, 0xff, 0, 0, 0, 0x00, 0x53, 0x18, 0x45]));
        },
        server: "closes",
      },
      {
        name: "a truncated attach, then the socket ends",
        send: async (c) => {
          await opened(c);
          const attach = attachSender(0, "cut", "somewhere");
          c.write(attach.subarray(0, attach.length - 7));
          c.socket.end();
        },
        server: "closes",
      },
      {
        name: "a truncated transfer, then the socket ends",
        send: async (c, bench) => {
          await authorized(c, bench);
          const message = transfer(0, 1, encodeMessage({ body: "cut short" }));
          c.write(message.subarray(0, 20));
          c.socket.end();
        },
        server: "closes",
      },
      {
        name: "a performative cut inside its list (size fixed to match)",
        send: async (c) => {
          await opened(c);
          c.write(rawFrame([0x00, 0x53, 0x12, 0xd0, 0, 0, 0, 0x40, 0, 0, 0, 0x0a, 0xa1]));
        },
        server: "closes",
      },
      {
        name: "a performative with an unknown descriptor",
        send: async (c) => {
          await opened(c);
          c.write(rawFrame([0x00, 0x53, 0x7e, 0x45]));
        },
        server: "closes",
      },
      {
        name: "a performative that is not described",
        send: async (c) => {
          await opened(c);
          c.write(rawFrame([0xa1, 0x03, 0x61, 0x62, 0x63]));
        },
        server: "closes",
      },
      {
        name: "an empty frame (a heartbeat), then close: answered",
        send: async (c) => {
          await opened(c);
          c.write(Buffer.from([0, 0, 0, 8, 2, 0, 0, 0]), CLOSE());
        },
        server: "closes",
        answer: closedWith(),
      },
    ];
    expect(await runCases(bench, cases)).toEqual([]);
    await finish(bench);
  });

  it("frames out of order: before begin, on links never attached, twice, and after the end", async () => {
    const bench = await FuzzBench.start();
    createQueue(bench.endpoint.engine, "absurd");
    await bench.endpoint.client.createSender("absurd").sendMessages([{ body: "a1" }, { body: "a2" }]);
    const open = () => frame(0, frames.open({ container_id: "order" }));
    const cases: RawCase[] = [
      {
        name: "attach before begin",
        send: (c) => c.write(AMQP_HEADER, open(), attachSender(0, "early", "somewhere")),
        server: "closes",
      },
      {
        name: "transfer before begin",
        send: (c) => c.write(AMQP_HEADER, open(), transfer(0, 0, encodeMessage({ body: "x" }))),
        server: "closes",
      },
      {
        name: "transfer on a handle never attached",
        send: async (c) => {
          await opened(c);
          c.write(transfer(7, 0, encodeMessage({ body: "x" })));
        },
        server: "closes",
      },
      {
        name: "flow for an unknown handle",
        send: async (c) => {
          await opened(c);
          c.write(flow(9, 10));
        },
        server: "closes",
      },
      {
        name: "detach of an unknown handle",
        send: async (c) => {
          await opened(c);
          c.write(frame(0, frames.detach({ handle: 5, closed: true })));
        },
        server: "closes",
      },
      {
        name: "dispositions for deliveries that do not exist (both roles), then close: answered",
        send: async (c) => {
          await opened(c);
          c.write(
            frame(0, frames.disposition({ role: true, first: 5, last: 9, settled: true })),
            frame(0, frames.disposition({ role: false, first: 0, last: 3, settled: true })),
            CLOSE(),
          );
        },
        server: "closes",
        answer: closedWith(),
      },
      {
        name: "a second open",
        send: async (c) => {
          await opened(c);
          c.write(open());
        },
        server: "closes",
      },
      {
        name: "end on a channel never begun",
        send: (c) => c.write(AMQP_HEADER, open(), frame(3, frames.end({}))),
        server: "closes",
      },
      {
        name: "close without begin: answered",
        send: (c) => c.write(AMQP_HEADER, open(), CLOSE()),
        server: "closes",
        answer: closedWith(),
      },
      {
        name: "a close with an error",
        send: async (c) => {
          await opened(c);
          c.write(
            frame(0, frames.close({ error: { condition: "amqp:internal-error", description: "bye" } })),
          );
        },
        server: "closes",
      },
      {
        name: "a begin naming a remote channel that does not exist",
        send: (c) =>
          c.write(
            AMQP_HEADER,
            open(),
            frame(
              0,
              frames.begin({
                remote_channel: 4,
                next_outgoing_id: 0,
                incoming_window: 10,
                outgoing_window: 10,
              }),
            ),
          ),
        server: "closes",
      },
      {
        name: "a second begin on channel 0, then close: answered",
        send: async (c) => {
          await opened(c);
          c.write(
            frame(0, frames.begin({ next_outgoing_id: 0, incoming_window: 10, outgoing_window: 10 })),
            CLOSE(),
          );
        },
        server: "closes",
        answer: closedWith(),
      },
      {
        name: "the same link attached twice",
        send: async (c, bench) => {
          await authorized(c, bench);
          c.write(attachSender(1, "twice", "twice"), attachSender(2, "twice", "twice"));
        },
        server: "closes",
      },
      {
        name: "a transfer out of delivery-id sequence",
        send: async (c, bench) => {
          await authorized(c, bench);
          c.write(attachSender(1, "sequence", "sequence"), transfer(1, 9, encodeMessage({ body: "x" })));
        },
        server: "closes",
      },
      {
        name: "a transfer on the client's receiving link (the wrong way): rejected, then close",
        send: async (c, bench) => {
          await authorized(c, bench);
          c.write(
            attachReceiver(1, "wrong-way", "absurd-wrong"),
            transfer(1, 1, encodeMessage({ body: "x" })),
          );
          await thenClose(c, "disposition", 1);
        },
        server: "closes",
        answer: (received) =>
          outcomes(received).some((one) => one.startsWith("1: rejected"))
            ? undefined
            : `dispositions ${outcomes(received)}`,
      },
      {
        name: "begin and attach with no open at all",
        send: (c) =>
          c.write(
            AMQP_HEADER,
            frame(0, frames.begin({ next_outgoing_id: 0, incoming_window: 10, outgoing_window: 10 })),
            attachSender(0, "unopened", "$cbs"),
          ),
        server: "may wait",
      },
      {
        name: "a begin with absurd windows and ids, then a receiver with all the credit there is",
        send: async (c, bench) => {
          c.write(
            AMQP_HEADER,
            frame(0, frames.open({ container_id: "absurd", max_frame_size: 512, channel_max: 0 })),
            frame(
              0,
              frames.begin({
                next_outgoing_id: 0xffffffff,
                incoming_window: 0xffffffff,
                outgoing_window: 0xffffffff,
                handle_max: 0,
              }),
            ),
            putNamespaceToken(bench.key),
            attachReceiver(1, "absurd", "absurd"),
            frame(
              0,
              frames.flow({
                next_incoming_id: 0,
                incoming_window: 0xffffffff,
                next_outgoing_id: 0xffffffff,
                outgoing_window: 0xffffffff,
                handle: 1,
                delivery_count: 0xffffffff,
                link_credit: 0xffffffff,
              }),
            ),
          );
          await thenClose(c, "transfer", 2);
        },
        server: "closes",
        answer: (received) =>
          names(received).filter((one) => one === "transfer").length === 2
            ? undefined
            : `got ${names(received)}`,
      },
    ];
    expect(await runCases(bench, cases)).toEqual([]);
    await finish(bench);
  });

  it("performatives and messages with wrong fields, built with rhea's encoder", async () => {
    const bench = await FuzzBench.start();
    const sends = (deliveries: Buffer[]) => async (c: RawConnection, b: FuzzBench) => {
      await authorized(c, b);
      c.write(attachSender(1, "wrong", "wrong-fields"), ...deliveries);
      await thenClose(c, "disposition", deliveries.length);
    };
    const rejected = (count: number) => (received: readonly ServerFrame[]) => {
      const got = outcomes(received);
      return got.length === count && got.every((one) => one.includes("rejected"))
        ? undefined
        : `dispositions ${got}`;
    };
    const cases: RawCase[] = [
      {
        name: "an attach whose name and handle have the wrong types",
        send: async (c) => {
          await opened(c);
          c.write(
            frame(0, described(CODE.attach, [t.wrap_uint(7), t.wrap_string("h"), t.wrap_string("role")])),
          );
        },
        server: "closes",
      },
      {
        name: "an attach without its mandatory fields",
        send: async (c) => {
          await opened(c);
          c.write(frame(0, described(CODE.attach, [])));
        },
        server: "closes",
      },
      {
        name: "a link named __proto__",
        send: async (c, b) => {
          await authorized(c, b);
          c.write(attachReceiver(1, "__proto__", "wrong-fields"));
        },
        server: "closes",
      },
      {
        name: "a transfer whose payload is not an AMQP message (undescribed bytes), then close",
        // rhea reads no section of it and hands the server an empty message, which is stored.
        send: sends([transfer(1, 1, Buffer.from([0xa1, 0x02, 0x68, 0x69]))]),
        server: "closes",
        answer: (received) =>
          outcomes(received).length === 1 ? undefined : `dispositions ${outcomes(received)}`,
      },
      {
        name: "a transfer whose payload is cut inside a section",
        send: async (c, b) => {
          await authorized(c, b);
          c.write(
            attachSender(1, "cut", "wrong-fields"),
            transfer(1, 1, Buffer.from([0x00, 0x53, 0x77, 0xa1, 0x09, 0x68])),
          );
        },
        server: "closes",
      },
      {
        name: "batches (format 0x80013700) of garbage bytes, of data sections holding garbage, of a value body; an unknown format",
        send: sends([
          transfer(1, 1, Buffer.from([1, 2, 3, 4, 5]), { format: BATCH_FORMAT }),
          transfer(
            1,
            2,
            encodeMessage({ body: dataSections([Buffer.from([9, 9, 9]), Buffer.from([0x00, 0x53])]) }),
            {
              format: BATCH_FORMAT,
            },
          ),
          transfer(1, 3, encodeMessage({ body: "not data sections" }), { format: BATCH_FORMAT }),
          transfer(1, 4, encodeMessage({ body: "x" }), { format: 7 }),
        ]),
        server: "closes",
        answer: rejected(4),
      },
      {
        name: "messages with odd sections: properties of the wrong types, a header of garbage fields, annotations as a list",
        send: sends([
          transfer(
            1,
            1,
            Buffer.concat([
              section(0x73, [
                t.wrap_boolean(true),
                t.wrap_uint(5),
                t.wrap_uint(6),
                t.wrap_list([1]),
                t.wrap_uint(1),
              ]),
              section(0x77, t.wrap_string("body")),
            ]),
          ),
          transfer(
            1,
            2,
            Buffer.concat([
              section(0x70, [t.wrap_string("durable?"), t.wrap_string("ttl")]),
              section(0x77, t.wrap_uint(1)),
            ]),
          ),
          transfer(
            1,
            3,
            Buffer.concat([section(0x72, t.wrap_list([1, 2, 3])), section(0x77, t.wrap_uint(1))]),
          ),
        ]),
        server: "closes",
        answer: (received) =>
          outcomes(received).length === 3 ? undefined : `dispositions ${outcomes(received)}`,
      },
    ];
    expect(await runCases(bench, cases)).toEqual([]);
    await finish(bench);
  });

  it("$cbs put-tokens and $management requests with wrong bodies are answered with error statuses", async () => {
    const bench = await FuzzBench.start();
    createQueue(bench.endpoint.engine, "managed");
    await bench.endpoint.client.createSender("managed").sendMessages({ body: "peek me" });
    const cbs =
      (requests: { id: string; properties?: Record<string, unknown>; body: unknown }[]) =>
      async (c: RawConnection) => {
        await opened(c);
        c.write(
          attachReceiver(0, "cbs-replies", "$cbs"),
          flow(0, 100),
          attachSender(1, "cbs", "$cbs"),
          ...requests.map((request, index) =>
            transfer(
              1,
              index,
              encodeMessage({
                message_id: request.id,
                reply_to: "cbs-replies",
                application_properties: request.properties,
                body: request.body,
              }),
              { settled: true },
            ),
          ),
        );
        await thenClose(c, "reply", requests.length);
      };
    const statuses =
      (key: string, expected: Record<string, number>) => (received: readonly ServerFrame[]) => {
        const got = Object.fromEntries(
          repliesIn(received).map((reply) => [String(reply.correlationId), reply.properties[key]]),
        );
        return JSON.stringify(got) === JSON.stringify(expected)
          ? undefined
          : `statuses ${JSON.stringify(got)}`;
      };
    const token = {
      operation: "put-token",
      type: "servicebus.windows.net:sastoken",
      name: "sb://localhost/",
    };
    const management =
      (requests: { id: string; operation: unknown; body: unknown }[]) =>
      async (c: RawConnection, b: FuzzBench) => {
        await authorized(c, b);
        c.write(
          attachReceiver(1, "replies", "managed/$management"),
          flow(1, 100),
          attachSender(2, "requests", "managed/$management"),
          ...requests.map((request, index) =>
            transfer(
              2,
              index + 1,
              encodeMessage({
                message_id: request.id,
                reply_to: "replies",
                application_properties: { operation: request.operation },
                body: request.body,
              }),
              { settled: true },
            ),
          ),
        );
        await thenClose(c, "reply", requests.length);
      };
    const cases: RawCase[] = [
      {
        name: "put-tokens: a binary token, no audience, an audience list, an unknown operation, no properties, a malformed token",
        send: cbs([
          { id: "binary", properties: token, body: Buffer.from("token") },
          {
            id: "no-name",
            properties: { ...token, name: undefined },
            body: "SharedAccessSignature sr=a&sig=b&se=1&skn=c",
          },
          { id: "name-list", properties: { ...token, name: t.wrap_list([1]) }, body: t.wrap_uint(3) },
          { id: "operation", properties: { operation: 5 }, body: "x" },
          { id: "no-properties", body: "x" },
          {
            id: "malformed",
            properties: token,
            body: "SharedAccessSignature sr=%ZZ&sig=b&se=99999999999&skn=RootManageSharedAccessKey",
          },
        ]),
        server: "closes",
        answer: statuses("status-code", {
          binary: 400,
          "no-name": 400,
          "name-list": 400,
          operation: 400,
          "no-properties": 400,
          malformed: 401,
        }),
      },
      {
        name: "$management: lock-tokens not UUIDs, sequence numbers as strings, unknown and missing operations, a number body",
        send: management([
          {
            id: "renew-strings",
            operation: "com.microsoft:renew-lock",
            body: { "lock-tokens": ["not-a-uuid"] },
          },
          {
            id: "renew-short",
            operation: "com.microsoft:renew-lock",
            body: { "lock-tokens": [Buffer.from([1, 2, 3])] },
          },
          {
            id: "renew-unknown",
            operation: "com.microsoft:renew-lock",
            body: { "lock-tokens": [t.wrap_uuid(Buffer.alloc(16, 7))] },
          },
          {
            id: "cancel-strings",
            operation: "com.microsoft:cancel-scheduled-message",
            body: { "sequence-numbers": ["1", "2"] },
          },
          {
            id: "receive-strings",
            operation: "com.microsoft:receive-by-sequence-number",
            body: { "sequence-numbers": "1" },
          },
          {
            id: "peek-string",
            operation: "com.microsoft:peek-message",
            body: { "from-sequence-number": "1" },
          },
          {
            id: "schedule-garbage",
            operation: "com.microsoft:schedule-message",
            body: { messages: [{ message: Buffer.from([1, 2, 3]) }] },
          },
          {
            id: "dispose-unknown",
            operation: "com.microsoft:update-disposition",
            body: { "lock-tokens": [t.wrap_uuid(Buffer.alloc(16, 1))], "disposition-status": "eaten" },
          },
          { id: "session-no-id", operation: "com.microsoft:get-session-state", body: {} },
          { id: "unknown", operation: "com.microsoft:nope", body: {} },
          { id: "no-operation", operation: undefined, body: {} },
          { id: "number-body", operation: "com.microsoft:renew-lock", body: 5 },
        ]),
        server: "closes",
        answer: statuses("statusCode", {
          "renew-strings": 400,
          "renew-short": 400,
          "renew-unknown": 410,
          "cancel-strings": 400,
          "receive-strings": 400,
          "peek-string": 400,
          "schedule-garbage": 400,
          "dispose-unknown": 410,
          "session-no-id": 400,
          unknown: 501,
          "no-operation": 501,
          "number-body": 400,
        }),
      },
    ];
    expect(await runCases(bench, cases)).toEqual([]);
    await finish(bench);
  });

  describe("clients that vanish are forgotten", () => {
    it("a sender cut off in the middle of a multi-frame transfer leaves no message and no wait", async () => {
      const bench = await FuzzBench.start();
      const { engine, client } = bench.endpoint;
      createQueue(engine, "cut");
      const whole = encodeMessage({ body: "y".repeat(3_000) });
      const result = await bench.run(async (c) => {
        await authorized(c, bench);
        c.write(
          attachSender(1, "cut", "cut"),
          transfer(1, 1, whole.subarray(0, 1_000), { more: true }),
          transfer(1, 1, whole.subarray(1_000, 2_000), { more: true }),
        );
        await c.waitFor((one) => one.named("attach").length >= 2, 1_000);
        await sleep(20);
        await c.destroy();
      }, BOUND_MS);
      expect(result.ending).toBe("closed");
      expect(engine.stats("cut")).toEqual({ active: 0, inFlight: 0, delayed: 0, deadLettered: 0 });
      await client.createSender("cut").sendMessages({ body: "whole" });
      const received = await client
        .createReceiver("cut", { receiveMode: "receiveAndDelete" })
        .receiveMessages(1, { maxWaitTimeInMs: 1_000 });
      expect(received.map((message) => message.body)).toEqual(["whole"]);
      expect(engine.stats("cut")).toEqual({ active: 0, inFlight: 0, delayed: 0, deadLettered: 0 });
      await finish(bench, { newClient: false });
    });

    it("a receiver that vanishes mid-drain, or while it waits, leaves its locks until they end and no wait behind", async () => {
      const bench = await FuzzBench.start();
      const { engine, client } = bench.endpoint;
      createQueue(engine, "drained", { lockDurationMs: 300 });
      createQueue(engine, "waited", { lockDurationMs: 300 });
      await client.createSender("drained").sendMessages([{ body: 1 }, { body: 2 }, { body: 3 }]);
      await bench.run(async (c) => {
        await authorized(c, bench);
        c.write(attachReceiver(1, "drainer", "drained"), flow(1, 2));
        await c.waitFor((one) => one.named("transfer").length >= 2, 1_000);
        c.write(flow(1, 5, { drain: true, deliveryCount: 2 }));
        await c.destroy();
      }, BOUND_MS);
      await bench.run(async (c) => {
        await authorized(c, bench);
        c.write(attachReceiver(1, "waiter", "waited"), flow(1, 10));
        await c.waitFor((one) => one.named("attach").length >= 2, 1_000);
        await sleep(20);
        expect(engine.waitingReceivers("waited")).toBe(1);
        await c.destroy();
      }, BOUND_MS);
      await sleep(20);
      expect(engine.waitingReceivers("drained")).toBe(0);
      expect(engine.waitingReceivers("waited")).toBe(0);
      expect(engine.stats("drained")).toEqual({ active: 1, inFlight: 2, delayed: 0, deadLettered: 0 });
      await client.createSender("waited").sendMessages({ body: "not taken by the vanished waiter" });
      const waited = await client.createReceiver("waited").receiveMessages(1, { maxWaitTimeInMs: 1_000 });
      expect(waited.map((message) => message.body)).toEqual(["not taken by the vanished waiter"]);
      await sleep(320);
      expect(engine.stats("drained")).toEqual({ active: 3, inFlight: 0, delayed: 0, deadLettered: 0 });
      const receiver = client.createReceiver("drained");
      const received = await receiver.receiveMessages(3, { maxWaitTimeInMs: 1_000 });
      expect(received.map((message) => [message.body, message.deliveryCount]).sort()).toEqual([
        [1, 1],
        [2, 1],
        [3, 0],
      ]);
      for (const message of received) await receiver.completeMessage(message);
      await finish(bench, { newClient: false });
    });

    it("a session receiver that vanishes frees its session, and its message, at once", async () => {
      const bench = await FuzzBench.start();
      const { engine, client } = bench.endpoint;
      createQueue(engine, "sessions", { requiresSession: true, lockDurationMs: 300 });
      await client.createSender("sessions").sendMessages([{ body: "s1", sessionId: "a" }]);
      await bench.run(async (c) => {
        await authorized(c, bench);
        const filter = t.wrap_map({ "com.microsoft:session-filter": "a" }, t.wrap_symbol);
        c.write(
          attachReceiver(
            1,
            "session",
            terminus(CODE.source, "sessions", [NULL, NULL, NULL, NULL, NULL, NULL, filter]),
          ),
          flow(1, 5),
        );
        await c.waitFor((one) => one.named("transfer").length >= 1, 1_000);
        await c.destroy();
      }, BOUND_MS);
      // The session is free at once, and its message, whose lock went with the session, is delivered again.
      const session = await client.acceptSession("sessions", "a");
      const received = await session.receiveMessages(1, { maxWaitTimeInMs: 1_000 });
      expect(received.map((message) => [message.body, message.deliveryCount])).toEqual([["s1", 1]]);
      await session.completeMessage(received[0]!);
      await session.close();
      await finish(bench, { newClient: false });
    });
  });

  describe("regressions: what this fuzz found, in the server and in rhea under it", () => {
    it("a 33-byte open declaring an array of 2^32 nulls ends that connection at once, not the server process", async () => {
      const bench = await FuzzBench.start();
      // rhea's decoder makes one object per array element, and an element of a zero-width type
      // (null, true, uint0, the empty list, …) takes no bytes: an array32 of nulls with count
      // 0xFFFFFFFF, in the open's outgoing-locales field, is 33 bytes on the wire, needs neither
      // SASL nor a token, and ends the process with a fatal "JavaScript heap out of memory"
      // (4 s with a 512 MB heap). Here 2^21 of them, which the server decodes (and accepts).
      const open = (count: number) => {
        const bytes = rawFrame([
          ...[0x00, 0x53, 0x10, 0xd0, 0, 0, 0, 20, 0, 0, 0, 2, 0xa1, 1, 0x78],
          ...[0xf0, 0, 0, 0, 5, 0, 0, 0, 0, 0x40],
        ]);
        bytes.writeUInt32BE(count, 28);
        return bytes;
      };
      let ms = 0;
      const result = await bench.run(async (c) => {
        const started = performance.now();
        c.write(AMQP_HEADER, open(2 ** 21), CLOSE());
        // rhea answers an undecodable frame by ending the connection, with no close frame.
        await c.waitFor((one) => one.named("close").length > 0 || one.closed, 10_000);
        ms = Math.round(performance.now() - started);
      }, BOUND_MS);
      expect({ answered: names(result.frames).includes("close") || result.ending === "closed", ms }).toEqual({
        answered: true,
        ms: expect.toSatisfy((taken: number) => taken < 100),
      });
      await finish(bench, { newClient: false });
    });

    it("a disposition over a huge range of delivery ids is settled at once, stalling no one", async () => {
      const bench = await FuzzBench.start();
      // rhea walks every id from first to last, one by one, even with no delivery outstanding:
      // 2^26 ids here (a few hundred ms); the 2^32 a client may name stall every client for seconds.
      const stalled: Record<string, number> = {};
      for (const role of [true, false])
        await bench.run(async (c) => {
          await opened(c);
          const started = performance.now();
          c.write(frame(0, frames.disposition({ role, first: 0, last: 2 ** 26, settled: true })), CLOSE());
          await c.waitFor((one) => one.named("close").length > 0, 10_000);
          stalled[`ms until the close after a disposition of role ${role}`] = Math.round(
            performance.now() - started,
          );
        }, BOUND_MS);
      expect(Object.entries(stalled).filter(([, ms]) => ms >= 100)).toEqual([]);
      await finish(bench, { newClient: false });
    });

    it("a receiver whose session the client ended is forgotten: no wait on its queue, no spinning", async () => {
      const bench = await FuzzBench.start();
      const { engine, client } = bench.endpoint;
      createQueue(engine, "ended");
      const giveBacks = vi.spyOn(engine, "giveBack");
      const connection = await bench.connect();
      await authorized(connection, bench);
      connection.write(attachReceiver(1, "orphan", "ended"), flow(1, 5));
      await connection.waitFor((one) => one.named("attach").length >= 2, 1_000);
      connection.write(frame(0, frames.end({})));
      await connection.waitFor((one) => one.named("end").length > 0, 1_000);
      await sleep(50);
      const waiting = engine.waitingReceivers("ended");
      await client.createSender("ended").sendMessages({ body: "e1" });
      await sleep(200);
      const spins = giveBacks.mock.calls.length;
      const received = await client
        .createReceiver("ended", { receiveMode: "receiveAndDelete" })
        .receiveMessages(1, { maxWaitTimeInMs: 1_000 });
      await connection.destroy();
      await bench.socketsSettled();
      expect(received.map((message) => message.body)).toEqual(["e1"]);
      // The link went with its session; the server keeps it (it listens to no session_close) while the connection lives.
      expect({ waiting, spins }).toEqual({ waiting: 0, spins: 0 });
      await finish(bench, { newClient: false });
    });

    it("links attached after the client's close are refused and forgotten", async () => {
      // With tokens checked, the attach after close re-creates the connection's state (its grants gone)
      // and the server never hears of the connection again: rhea reports no `disconnected` for a closed one.
      const checked = await FuzzBench.start();
      // The same link attached before the close is forgotten, as it should be.
      await checked.run((c) => c.write(openAndBegin(), attachSender(0, "cbs", "$cbs"), CLOSE()), BOUND_MS);
      const beforeClose = await checked.leaks();
      await checked.run(
        (c) => c.write(openAndBegin(), CLOSE(), attachSender(0, "late-cbs", "$cbs")),
        BOUND_MS,
      );
      const checkedLeaks = await checked.leaks();
      await checked.healthy();
      // Without tokens (--no-auth), a receiver attached after close gets a delivery link that the
      // server keeps for ever (it waits for a credit rhea never reports on a closed connection).
      const open = await FuzzBench.start({ sasKey: null });
      createQueue(open.endpoint.engine, "late");
      await open.run(
        (c) => c.write(openAndBegin(), CLOSE(), attachReceiver(0, "late", "late"), flow(0, 5)),
        BOUND_MS,
      );
      const openLeaks = await open.leaks();
      await open.healthy();
      expect({ beforeClose, checkedLeaks, openLeaks }).toEqual({
        beforeClose: [],
        checkedLeaks: [],
        openLeaks: [],
      });
    });

    it("a receiver whose session window is shut gets no more messages locked than its credit", async () => {
      const bench = await FuzzBench.start();
      const { engine, client } = bench.endpoint;
      createQueue(engine, "shut", { lockDurationMs: 300 });
      await client.createSender("shut").sendMessages([1, 2, 3, 4, 5].map((body) => ({ body })));
      let locked = 0;
      await bench.run(async (c) => {
        await authorized(c, bench, { incomingWindow: 0 });
        c.write(
          attachReceiver(1, "shut", "shut"),
          frame(
            0,
            frames.flow({
              next_incoming_id: 0,
              incoming_window: 0,
              next_outgoing_id: 2,
              outgoing_window: 100,
              handle: 1,
              delivery_count: 0,
              link_credit: 1,
            }),
          ),
        );
        await c.waitFor((one) => one.named("attach").length >= 2, 1_000);
        await sleep(200);
        locked = engine.stats("shut").inFlight;
        await c.destroy();
      }, BOUND_MS);
      // rhea lowers a link's credit only once it could write the transfer; the delivery link reads
      // the credit back as unspent and keeps locking messages for a client that can take none.
      await sleep(320);
      const receiver = client.createReceiver("shut", { receiveMode: "receiveAndDelete" });
      expect((await receiver.receiveMessages(5, { maxWaitTimeInMs: 1_000 })).length).toBe(5);
      expect(locked).toBeLessThanOrEqual(1);
      await finish(bench, { newClient: false });
    });

    it("an attach whose terminus has wrong fields is refused with invalid-field, and no server error", async () => {
      const bench = await FuzzBench.start();
      const source = (...fields: ReturnType<typeof t.wrap>[]) => terminus(CODE.source, "malformed", fields);
      const sevenNulls = [NULL, NULL, NULL, NULL, NULL, NULL];
      const variants: { name: string; attach: Buffer }[] = [
        {
          name: "a sender whose target address is a uint",
          attach: attachSender(1, "uint-target", t.wrap_uint(5)),
        },
        {
          name: "a sender whose target address is a list",
          attach: attachSender(1, "list-target", t.wrap_list([1, 2])),
        },
        {
          name: "a receiver whose source address is a uint",
          attach: attachReceiver(1, "uint-source", terminus(CODE.source, t.wrap_uint(5))),
        },
        {
          name: "a receiver whose session filter is a number",
          attach: attachReceiver(1, "number-filter", source(...sevenNulls, t.wrap_uint(5))),
        },
        {
          // As a client that sets later source fields writes an unset filter: an explicit null.
          name: "a receiver whose source has a null filter before its outcomes",
          attach: attachReceiver(
            1,
            "null-filter",
            source(...sevenNulls, NULL, NULL, t.wrap_array(["amqp:accepted:list"], 0xa3, undefined)),
          ),
        },
        {
          name: "a receiver whose source is a string, not a terminus",
          attach: frame(
            0,
            described(CODE.attach, [
              t.wrap_string("string-source"),
              t.wrap_uint(1),
              t.wrap_boolean(true),
              t.wrap_ubyte(0),
              t.wrap_ubyte(0),
              t.wrap_string("malformed"),
              terminus(CODE.target, "me"),
            ]),
          ),
        },
        {
          name: "a receiver without a target",
          attach: frame(
            0,
            described(CODE.attach, [
              t.wrap_string("no-target"),
              t.wrap_uint(1),
              t.wrap_boolean(true),
              t.wrap_ubyte(0),
              t.wrap_ubyte(0),
              terminus(CODE.source, "malformed"),
              NULL,
            ]),
          ),
        },
      ];
      const results = await Promise.all(
        variants.map(async ({ name, attach }) => {
          const result = await bench.run(async (c) => {
            await authorized(c, bench);
            c.write(attach, flow(1, 1));
            await c.waitFor((one) => one.named("detach").length > 0 || one.named("close").length > 0, 500);
            c.write(CLOSE());
          }, BOUND_MS);
          const refused = result.frames.some(
            (one) =>
              (one.name === "detach" && one.fields.handle === 1) ||
              (one.name === "close" && one.fields.error !== undefined),
          );
          const errors = result.errors.filter((error) => kindOf(error) === "server error").map(describeError);
          return [
            name,
            `${refused ? "refused" : "left attached, never answered"}${errors.length > 0 ? `; ${errors.join("; ")}` : ""}`,
          ] as const;
        }),
      );
      expect(Object.fromEntries(results)).toEqual(
        Object.fromEntries(variants.map(({ name }) => [name, "refused"])),
      );
      await finish(bench, { newClient: false });
    });

    it("a $management or $cbs request whose message-id cannot be echoed is answered, uncorrelated", async () => {
      const bench = await FuzzBench.start();
      createQueue(bench.endpoint.engine, "echo");
      const variants: {
        name: string;
        node: string;
        messageId: ReturnType<typeof t.wrap>;
        properties: Record<string, unknown>;
      }[] = [
        {
          name: "a $management request with a list as message-id",
          node: "echo/$management",
          messageId: t.wrap_list([t.wrap_uint(1)]),
          properties: { operation: "com.microsoft:peek-message" },
        },
        {
          name: "a $management request with a boolean message-id",
          node: "echo/$management",
          messageId: t.wrap_boolean(true),
          properties: { operation: "com.microsoft:peek-message" },
        },
        {
          name: "a $cbs put-token with a map as message-id",
          node: "$cbs",
          messageId: t.wrap_map({ a: 1 }),
          properties: { operation: "put-token", name: "sb://localhost/" },
        },
      ];
      const results = await Promise.all(
        variants.map(async ({ name, node, messageId, properties }) => {
          const result = await bench.run(async (c) => {
            await authorized(c, bench);
            c.write(
              attachReceiver(1, "replies", node),
              flow(1, 10),
              attachSender(2, "requests", node),
              transfer(
                2,
                1,
                Buffer.concat([
                  section(0x73, [messageId, NULL, NULL, NULL, t.wrap_string("replies")]),
                  encodeMessage({
                    application_properties: properties,
                    body: { "from-sequence-number": t.wrap_long(1) },
                  }),
                ]),
                { settled: true },
              ),
            );
            await c.waitFor((one) => repliesIn(one.frames).length > 0, 500);
            c.write(CLOSE());
          }, BOUND_MS);
          const errors = result.errors.filter((error) => kindOf(error) === "server error").map(describeError);
          return [
            name,
            `${repliesIn(result.frames).length > 0 ? "answered" : "never answered"}${errors.length > 0 ? `; ${errors.join("; ")}` : ""}`,
          ] as const;
        }),
      );
      expect(Object.fromEntries(results)).toEqual(
        Object.fromEntries(variants.map(({ name }) => [name, "answered"])),
      );
      await finish(bench, { newClient: false });
    });

    it("what rhea cannot read is the client's fault, never reported to onError as undefined", async () => {
      const bench = await FuzzBench.start();
      const reported: Record<string, string[]> = {};
      const cases: { name: string; send: (c: RawConnection) => Promise<void> }[] = [
        {
          name: "a transfer on a handle never attached",
          send: async (c) => {
            await opened(c);
            c.write(transfer(7, 0, encodeMessage({ body: "x" })));
          },
        },
        {
          name: "a frame smaller than its header",
          send: async (c) => {
            await opened(c);
            c.write(Buffer.from([0, 0, 0, 4, 2, 0, 0, 0, 0, 0, 0, 8]));
          },
        },
        {
          name: "an end of the session with an error",
          send: async (c) => {
            await opened(c);
            c.write(
              frame(0, frames.end({ error: { condition: "amqp:internal-error", description: "bye" } })),
              CLOSE(),
            );
          },
        },
      ];
      for (const { name, send } of cases) {
        const result = await bench.run(send, BOUND_MS);
        reported[name] = result.errors.map((error) =>
          error === undefined ? "undefined" : describeError(error),
        );
      }
      // rhea passes its read failure as the event's context, not as `context.error`; and these are the
      // client's faults, which the server answers to the client, not to onError.
      expect(Object.values(reported).flat()).not.toContain("undefined");
      await finish(bench, { newClient: false });
    });

    it("a peek whose message-count is not a whole number is refused, never answered with the whole queue", async () => {
      const bench = await FuzzBench.start();
      const { engine } = bench.endpoint;
      createQueue(engine, "peeked");
      const now = Date.now();
      engine.send(
        "peeked",
        Array.from({ length: 1_005 }, (_, index) => toEngineMessage({ body: `m${index}` }, now, false)),
      );
      const peek = (id: string, count: unknown) =>
        encodeMessage({
          message_id: id,
          reply_to: "replies",
          application_properties: { operation: "com.microsoft:peek-message" },
          body: { "from-sequence-number": t.wrap_long(1), "message-count": count },
        });
      const result = await bench.run(async (c) => {
        await authorized(c, bench);
        c.write(
          attachReceiver(1, "replies", "peeked/$management"),
          flow(1, 10),
          attachSender(2, "requests", "peeked/$management"),
          transfer(2, 1, peek("a string", "all of them"), { settled: true }),
          transfer(2, 2, peek("past 2^53", t.wrap_ulong(Buffer.alloc(8, 0xff))), { settled: true }),
        );
        await thenClose(c, "reply", 2);
      }, BOUND_MS);
      // Number() of either is NaN; Math.min(1000, Math.max(0, NaN)) is NaN, which the store's
      // `limit <= 0` and `found.length === limit` checks both let through.
      const peeked = Object.fromEntries(
        repliesIn(result.frames).map((reply) => [
          String(reply.correlationId),
          ((reply.body as { messages?: unknown[] } | undefined)?.messages ?? []).length,
        ]),
      );
      expect(Object.keys(peeked)).toHaveLength(2);
      expect(Object.entries(peeked).filter(([, count]) => count > 1_000)).toEqual([]);
      await finish(bench, { newClient: false });
    });

    it("two deliveries settled at once with different outcomes are each told their own", async () => {
      const bench = await FuzzBench.start();
      const { engine } = bench.endpoint;
      createQueue(engine, "merged");
      const result = await bench.run(async (c) => {
        await authorized(c, bench);
        c.write(
          attachSender(1, "merged", "merged"),
          transfer(1, 1, encodeMessage({ body: "stored" })),
          transfer(1, 2, encodeMessage({ body: "refused" }), { format: 7 }),
          transfer(1, 3, encodeMessage({ body: "refused too" }), { format: 7 }),
          transfer(1, 4, encodeMessage({ body: "stored too" })),
        );
        await thenClose(c, "disposition", 4);
      }, BOUND_MS);
      // rhea's write_dispositions extends a one-delivery range without comparing the next delivery's state.
      expect(engine.stats("merged").active).toBe(2);
      // Refusals go out at once and acceptances once committed: the order is not the deliveries'.
      expect(outcomes(result.frames).sort()).toEqual([
        "1: accepted",
        "2: rejected amqp:decode-error",
        "3: rejected amqp:decode-error",
        "4: accepted",
      ]);
      await finish(bench, { newClient: false });
    });
  });

  describe("seeded random mutations of a whole conversation", () => {
    const fixedSeed = 20_240_601;
    // FUZZ_SEED=<seed> replays a random run that failed.
    const randomSeed = Number(process.env.FUZZ_SEED) || randomInt(1, 2 ** 31);
    for (const seed of [fixedSeed, randomSeed])
      it(`seed ${seed}${seed === fixedSeed ? " (fixed)" : " (random: FUZZ_SEED=<it> replays it)"}`, async () => {
        const bench = await FuzzBench.start();
        const { engine } = bench.endpoint;
        createQueue(engine, RANDOM_QUEUE, { lockDurationMs: 300 });
        const dice = new Dice(seed);
        const stall = monitorEventLoopDelay({ resolution: 10 });
        stall.enable();
        const problems: string[] = [];
        let mutatedFrames = 0;
        const endings = { closed: 0, open: 0 };
        for (let batch = 0; batch < 4; batch++) {
          const mutants = Array.from({ length: 40 }, () => mutant(dice, bench.key));
          const results = await Promise.all(
            mutants.map(async (one) => {
              const connection = await bench.connect();
              const port = connection.socket.localPort;
              if (one.oneWrite) connection.write(...one.chunks);
              else
                for (const chunk of one.chunks) {
                  connection.write(chunk);
                  await new Promise((resolve) => setImmediate(resolve));
                }
              const ending = await connection.ending(HOLD_MS - 100);
              if (ending === "open") await connection.destroy();
              return { one, port, ending };
            }),
          );
          await bench.socketsSettled();
          for (const { one, port, ending } of results) {
            endings[ending]++;
            mutatedFrames += one.description
              .split("; ")
              .filter((change) => !change.startsWith("stops")).length;
            for (const error of bench.probe.errorsOf(port))
              if (kindOf(error) === "server error" && !isKnownServerError(error))
                problems.push(`server error ${describeError(error)} <= ${one.description}`);
          }
          for (const leak of await bench.leaks())
            if (!leak.closedByBoth)
              problems.push(
                `leaked ${JSON.stringify(leak)} <= ${results.find((one) => one.port === leak.clientPort)?.one.description}`,
              );
          await bench.healthy();
        }
        stall.disable();
        expect(mutatedFrames).toBeGreaterThan(200);
        expect(endings.closed).toBeGreaterThan(0);
        expect(problems).toEqual([]);
        // No read of a frame may hold up the server (and every other client) for a second.
        expect(stall.max / 1e6).toBeLessThan(1_000);
        await sleep(20);
        expect(engine.waitingReceivers(RANDOM_QUEUE)).toBe(0);
        await finish(bench);
      });
  });
});

/**
 * Server errors the random fuzz meets that a known-bug case below pins down: an attach whose
 * terminus rhea cannot read back (`set_source`/`set_target` of null) and a request whose
 * message-id cannot be echoed. Anything else the fuzz reports fails it.
 */
function isKnownServerError(error: unknown): boolean {
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  return /#onClientSender|#onClientReceiver|#acceptSession|#answer/.test(stack);
}

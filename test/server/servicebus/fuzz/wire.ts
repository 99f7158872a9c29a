// AMQP 1.0 on a bare TCP socket, for feeding the Service Bus endpoint frames no SDK would send:
// frames are built with rhea's own encoder (its frames module and `rhea.types`), or by hand.
import { createRequire } from "node:module";
import net from "node:net";
import rhea, { type Typed } from "rhea";
import { sasSignature } from "../../../../src/server/servicebus/sas.js";

/** What rhea's frames module takes and gives (it ships no typings of its own for it). */
interface RheaFrames {
  write_frame(frame: { channel: number; type: number; performative?: unknown; payload?: Buffer }): Buffer;
  read_frame(
    buffer: Buffer,
  ): { type: number; channel: number; performative?: object; payload?: Buffer } | null;
  open(fields: Record<string, unknown>): object;
  begin(fields: Record<string, unknown>): object;
  attach(fields: Record<string, unknown>): object;
  flow(fields: Record<string, unknown>): object;
  transfer(fields: Record<string, unknown>): object;
  disposition(fields: Record<string, unknown>): object;
  detach(fields: Record<string, unknown>): object;
  end(fields: Record<string, unknown>): object;
  close(fields: Record<string, unknown>): object;
  sasl_init(fields: Record<string, unknown>): object;
}

/** rhea's frame codec, from the same copy of rhea the server runs on. */
export const frames = createRequire(import.meta.url)("rhea/lib/frames.js") as RheaFrames;
const t = rhea.types;

/** The protocol headers: plain AMQP, and SASL. */
export const AMQP_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 1, 0, 0]);
export const SASL_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 3, 1, 0, 0]);

/** Performative descriptors (AMQP 1.0 part 2.7) and the Service Bus batch format. */
export const CODE = {
  open: 0x10,
  begin: 0x11,
  attach: 0x12,
  flow: 0x13,
  transfer: 0x14,
  disposition: 0x15,
  detach: 0x16,
  end: 0x17,
  close: 0x18,
  source: 0x28,
  target: 0x29,
  saslInit: 0x41,
} as const;
export const BATCH_FORMAT = 0x80013700;

/** An AMQP frame (type 0) on `channel` holding `performative` (a rhea composite or any typed value) and `payload`. */
export function frame(channel: number, performative: unknown, payload?: Buffer): Buffer {
  return frames.write_frame({ channel, type: 0, performative, ...(payload ? { payload } : {}) });
}

/** A SASL frame (type 1). */
export function saslFrame(performative: unknown): Buffer {
  return frames.write_frame({ channel: 0, type: 1, performative });
}

/** A described list with descriptor `code` holding exactly `fields` (each typed as given, so any field can have the wrong type). */
export function described(code: number, fields: readonly Typed[]): Typed {
  return t.described(t.wrap_ulong(code), t.wrap_list([...fields]));
}

/** An AMQP null, for skipping a field of a described list. */
export const NULL: Typed = t.wrap(null);

/** The frames of a client that opens, begins one session (channel 0) and nothing else. */
export function openAndBegin(options: { incomingWindow?: number; outgoingWindow?: number } = {}): Buffer {
  return Buffer.concat([
    AMQP_HEADER,
    frame(0, frames.open({ container_id: "fuzz", max_frame_size: 65_536 })),
    frame(
      0,
      frames.begin({
        next_outgoing_id: 0,
        incoming_window: options.incomingWindow ?? 2_048,
        outgoing_window: options.outgoingWindow ?? 2_048,
      }),
    ),
  ]);
}

/** A source or target terminus with `address` (a string, or any typed value to make it wrong). */
export function terminus(code: number, address: string | Typed, more: readonly Typed[] = []): Typed {
  return described(code, [typeof address === "string" ? t.wrap_string(address) : address, ...more]);
}

/** An attach of the client's sender (role false) to `address` on `handle`. */
export function attachSender(handle: number, name: string, address: string | Typed): Buffer {
  return frame(
    0,
    frames.attach({
      name,
      handle,
      role: false,
      source: terminus(CODE.source, `fuzz-${name}`),
      target: terminus(CODE.target, address),
      initial_delivery_count: 0,
    }),
  );
}

/** An attach of the client's receiver (role true) from `source` on `handle`; `settleMode` 1 is receive-and-delete. */
export function attachReceiver(
  handle: number,
  name: string,
  source: string | Typed,
  options: { settleMode?: 0 | 1 | 2 } = {},
): Buffer {
  return frame(
    0,
    frames.attach({
      name,
      handle,
      role: true,
      snd_settle_mode: options.settleMode ?? 0,
      rcv_settle_mode: 0,
      source: typeof source === "string" ? terminus(CODE.source, source) : source,
      target: terminus(CODE.target, `fuzz-${name}`),
    }),
  );
}

/** A link flow giving `credit` on `handle`, with `drain` if asked. */
export function flow(
  handle: number,
  credit: number,
  options: { drain?: boolean; deliveryCount?: number } = {},
) {
  return frame(
    0,
    frames.flow({
      next_incoming_id: 0,
      incoming_window: 2_048,
      next_outgoing_id: 0,
      outgoing_window: 2_048,
      handle,
      delivery_count: options.deliveryCount ?? 0,
      link_credit: credit,
      drain: options.drain ?? false,
    }),
  );
}

/** A transfer on `handle` of `payload` (an encoded message, or anything). */
export function transfer(
  handle: number,
  deliveryId: number,
  payload: Buffer,
  options: { format?: number; more?: boolean; settled?: boolean } = {},
): Buffer {
  return frame(
    0,
    frames.transfer({
      handle,
      delivery_id: deliveryId,
      delivery_tag: Buffer.from(`tag-${deliveryId}`),
      message_format: options.format ?? 0,
      settled: options.settled ?? false,
      more: options.more ?? false,
    }),
    payload,
  );
}

/** An encoded AMQP message. */
export function encodeMessage(message: Record<string, unknown>): Buffer {
  return rhea.message.encode(message as never);
}

/** A SAS token for the whole namespace, as the SDK puts it on `$cbs`. */
export function namespaceToken(key: { keyName: string; key: string }): string {
  const resource = encodeURIComponent("sb://localhost/");
  const expiry = Math.floor(Date.now() / 1_000) + 3_600;
  const signature = encodeURIComponent(sasSignature(key.key, resource, expiry));
  return `SharedAccessSignature sr=${resource}&sig=${signature}&se=${expiry}&skn=${encodeURIComponent(key.keyName)}`;
}

// Sent after openAndBegin(), it leaves handle 1 and delivery id 1 as the next ones free.
/** The frames that authorize a connection for every entity: a sender on `$cbs` (handle 0) and a namespace put-token on it (delivery 0). */
export function putNamespaceToken(key: { keyName: string; key: string }): Buffer {
  return Buffer.concat([
    attachSender(0, "cbs", "$cbs"),
    transfer(
      0,
      0,
      encodeMessage({
        message_id: "token-1",
        reply_to: "cbs-replies",
        application_properties: {
          operation: "put-token",
          type: "servicebus.windows.net:sastoken",
          name: "sb://localhost/",
        },
        body: namespaceToken(key),
      }),
      { settled: true },
    ),
  ]);
}

/** A frame the server sent, decoded by rhea: its performative's name (`close`, `detach`, …) and fields. */
export interface ServerFrame {
  readonly name: string;
  readonly channel: number;
  readonly fields: Record<string, unknown>;
  readonly payload?: Buffer;
}

/** How a raw connection ended, or that it did not. */
export type Ending = "closed" | "open";

/**
 * A raw client socket: what it writes is sent as is; what the server sends back is decoded
 * frame by frame (protocol headers are kept apart), and its end is recorded.
 */
export class RawConnection {
  readonly socket: net.Socket;
  readonly frames: ServerFrame[] = [];
  readonly headers: Buffer[] = [];
  /** Bytes the server sent that do not parse as frames (none is expected). */
  undecodable = 0;
  #pending = Buffer.alloc(0);
  #closed = false;
  readonly #waiters = new Set<() => void>();

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => this.#read(chunk));
    // A reset (the server destroying the socket) is an ending like any other here.
    socket.on("error", () => undefined);
    socket.on("close", () => {
      this.#closed = true;
      this.#notify();
    });
  }

  /** Connects to the server's port. */
  static connect(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: "127.0.0.1" });
      socket.setNoDelay(true);
      socket.once("connect", () => resolve(new RawConnection(socket)));
      socket.once("error", reject);
    });
  }

  /** Whether the socket has closed (the server ended or reset it, or this side destroyed it). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Writes bytes as they are (nothing once the socket is gone). */
  write(...chunks: Buffer[]): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(Buffer.concat(chunks));
  }

  /** The frames the server sent named `name`. */
  named(name: string): ServerFrame[] {
    return this.frames.filter((one) => one.name === name);
  }

  /** Waits until `predicate` holds or `ms` pass; resolves whether it held. */
  waitFor(predicate: (connection: RawConnection) => boolean, ms: number): Promise<boolean> {
    if (predicate(this)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate(this)) return;
        finish(true);
      };
      const timer = setTimeout(() => finish(predicate(this)), ms);
      const finish = (held: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(held);
      };
      this.#waiters.add(check);
    });
  }

  /** Waits up to `ms` for the server to close the socket. */
  async ending(ms: number): Promise<Ending> {
    return (await this.waitFor((connection) => connection.closed, ms)) ? "closed" : "open";
  }

  /** Destroys the socket (a client that vanishes) and waits for it to be gone. */
  async destroy(): Promise<void> {
    this.socket.destroy();
    await this.waitFor((connection) => connection.closed, 1_000);
  }

  #read(chunk: Buffer): void {
    this.#pending = Buffer.concat([this.#pending, chunk]);
    for (;;) {
      if (this.#pending.length >= 8 && this.#pending.toString("latin1", 0, 4) === "AMQP") {
        this.headers.push(this.#pending.subarray(0, 8));
        this.#pending = this.#pending.subarray(8);
        continue;
      }
      if (this.#pending.length < 4) break;
      const size = this.#pending.readUInt32BE(0);
      if (size < 8 || size > 16 * 1_048_576) {
        this.undecodable += this.#pending.length;
        this.#pending = Buffer.alloc(0);
        break;
      }
      if (this.#pending.length < size) break;
      const bytes = this.#pending.subarray(0, size);
      this.#pending = this.#pending.subarray(size);
      try {
        const decoded = frames.read_frame(Buffer.from(bytes));
        const performative = decoded?.performative as
          | { toJSON?: () => Record<string, unknown>; constructor: { toString(): string } }
          | undefined;
        if (decoded === null || decoded === undefined) continue;
        this.frames.push({
          name: performative === undefined ? "empty" : String(performative.constructor).split("#")[0]!,
          channel: decoded.channel,
          fields: performative?.toJSON?.() ?? {},
          ...(decoded.payload ? { payload: decoded.payload } : {}),
        });
      } catch {
        this.undecodable += bytes.length;
      }
    }
    this.#notify();
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** The condition of an AMQP error field (of a close, end, detach or rejected outcome), if it has one. */
export function conditionOf(error: unknown): string | undefined {
  if (error === null || typeof error !== "object") return undefined;
  const condition = (error as { condition?: unknown }).condition;
  return typeof condition === "string" ? condition : undefined;
}

/** Typed values for wrong fields. */
export const typed = t;

/** A delivery's outcome as a disposition frame carries it: `accepted`, `rejected <condition>`, `released`, … */
export function outcomeOf(state: unknown): string {
  const descriptor = (state as { descriptor?: { value?: unknown } } | null | undefined)?.descriptor?.value;
  const names: Record<number, string> = {
    35: "received",
    36: "accepted",
    37: "rejected",
    38: "released",
    39: "modified",
  };
  const name =
    typeof descriptor === "number" ? (names[descriptor] ?? `0x${descriptor.toString(16)}`) : "none";
  if (name !== "rejected") return name;
  const [error] = t.unwrap(state) as unknown[];
  return `rejected ${conditionOf(error) ?? "(no condition)"}`;
}

/** A reply the server sent on a `$cbs` or `$management` reply link: what it answers and its status. */
export interface Reply {
  readonly correlationId: unknown;
  readonly properties: Record<string, unknown>;
  readonly body: unknown;
}

/** The replies among the transfers the server sent (a reply split over several transfer frames is joined). */
export function repliesIn(received: readonly ServerFrame[]): Reply[] {
  const replies: Reply[] = [];
  let parts: Buffer[] = [];
  for (const one of received) {
    if (one.name !== "transfer") continue;
    if (one.payload !== undefined) parts.push(one.payload);
    if (one.fields.more === true) continue;
    const payload = Buffer.concat(parts);
    parts = [];
    const message = rhea.message.decode(payload) as {
      correlation_id?: unknown;
      application_properties?: Record<string, unknown>;
      body?: unknown;
    };
    replies.push({
      correlationId: message.correlation_id,
      properties: message.application_properties ?? {},
      body: message.body,
    });
  }
  return replies;
}

/** The frames of a SASL ANONYMOUS exchange, the client's half (header and init). */
export function saslAnonymous(): Buffer {
  return Buffer.concat([SASL_HEADER, saslFrame(frames.sasl_init({ mechanism: "ANONYMOUS" }))]);
}

/** A valid empty `close`, as a client ends politely. */
export const CLOSE = (): Buffer => frame(0, frames.close({}));

/** The AMQP encoding of one typed value (a message section, say), by rhea's writer. */
export function encodeValue(value: Typed): Buffer {
  // A frame is its 8-byte header, then the performative as written: here, the value.
  return frame(0, value).subarray(8);
}

/** A message section: a described list of `fields`, or a described single value. */
export function section(code: number, value: Typed | readonly Typed[]): Buffer {
  return encodeValue(Array.isArray(value) ? described(code, value) : t.described(t.wrap_ulong(code), value));
}

/** A message body of data sections, one per part (what a Service Bus batch is made of). */
export function dataSections(parts: readonly Buffer[]): unknown {
  return rhea.message.data_sections([...parts]);
}

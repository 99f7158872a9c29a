// The floor of the Service Bus benchmark: a bare rhea server speaking just enough of Service Bus
// for the @azure/service-bus SDK (SASL ANONYMOUS, `$cbs` put-token answered 202 unchecked, senders
// told the largest message size, peek-lock receivers with credit and drain, `$management`
// answered OK whatever it asks), which hands each message it gets (single or batched) straight to
// a receiver with credit, or keeps it in an array until one has some. No engine, no locks, no
// checks, nothing kept once settled.
import { randomUUID } from "node:crypto";
import type { AddressInfo, Server } from "node:net";
import rhea from "rhea";

/** The parts of a message the floor reads and writes. */
interface Message {
  message_id?: unknown;
  reply_to?: string;
  body?: unknown;
  application_properties?: Record<string, unknown>;
  message_annotations?: Record<string, unknown>;
}

/** A message on its way to a receiver. */
interface Outgoing {
  /** The message, or (given back by a link that closed) its encoded bytes. */
  readonly message: Message | Buffer;
  readonly tag: Buffer;
}

/** rhea's record of a delivery it was handed, which its typings leave out. */
interface RheaDelivery {
  readonly link: rhea.Sender;
  readonly tag: Buffer;
  readonly data: Buffer[];
  readonly remote_state?: unknown;
}
interface SessionInternals {
  outgoing: {
    deliveries: { entries: (RheaDelivery | undefined)[]; head: number; size: number; capacity: number };
  };
}

/** What the floor keeps of one queue receiver: the link, and how many it handed rhea this tick. */
interface Receiving {
  readonly sender: rhea.Sender;
  sentThisTick: number;
}

/** The message format of a Service Bus batch: one envelope whose data sections are each a whole message. */
const BATCH_FORMAT = 0x80013700;
const DATA = 0x75;
const LOCK_MS = 60_000;
const MAX_MESSAGE_BYTES = 1_048_576;

/** rhea's inner fields the floor reads, which its typings leave out. */
interface SenderInternals {
  credit: number;
  _draining: boolean;
}
interface LinkAttach {
  local: { attach: { max_message_size?: number } };
}

const container = rhea.create_container({ id: "bare-amqp-floor" });
/** Each connection's reply links, by target address and by name. */
const replyLinks = new Map<rhea.Connection, Map<string, rhea.Sender>>();
/** The request links of `$cbs` and of `$management` nodes, each with how its requests are answered. */
const requestLinks = new WeakMap<rhea.Receiver, Record<string, unknown>>();
/** A `put-token`: accepted, unchecked. */
const CBS_ANSWER = { "status-code": 202, "status-description": "Accepted" };
/**
 * A management request, whatever it asks: OK. The SDK completes a message through `$management`
 * when its receiver link has closed (as it does when a drain goes unanswered for 200 ms); the
 * floor keeps nothing, so there is nothing to do.
 */
const MANAGEMENT_ANSWER = { statusCode: 200, statusDescription: "OK" };
/** The queue receivers, in the order they attached. */
const receivers: Receiving[] = [];
const byLink = new Map<rhea.Sender, Receiving>();
/** Messages no receiver had credit for, oldest first from `head`. */
let pending: Outgoing[] = [];
let head = 0;
let sequence = 0;
let next = 0;

/** The links handed messages this tick, whose counts go back to 0 once rhea has written them. */
const sentTo: Receiving[] = [];

/**
 * The credit a link has left: rhea lowers its count only when it writes the transfers, on the
 * next tick; and a link being drained has none (its credit is given back unused).
 */
function creditOf(receiving: Receiving): number {
  const link = receiving.sender as unknown as SenderInternals;
  return link._draining ? 0 : link.credit - receiving.sentThisTick;
}

/** Hands `item` to rhea on `receiving`'s link. */
function deliver(receiving: Receiving, item: Outgoing): void {
  if (Buffer.isBuffer(item.message)) receiving.sender.send(item.message as never, item.tag, 0);
  else receiving.sender.send(item.message as never, item.tag);
  // rhea's send has queued its write with process.nextTick, so this runs after it.
  if (sentTo.length === 0) process.nextTick(written);
  if (receiving.sentThisTick++ === 0) sentTo.push(receiving);
}

function written(): void {
  for (const receiving of sentTo) receiving.sentThisTick = 0;
  sentTo.length = 0;
}

/** A receiver with credit, taking turns between them; `undefined` when none has any. */
function receiverWithCredit(): Receiving | undefined {
  for (let i = 0; i < receivers.length; i++) {
    const receiving = receivers[(next + i) % receivers.length]!;
    if (creditOf(receiving) > 0 && receiving.sender.is_open()) {
      next = (next + i + 1) % receivers.length;
      return receiving;
    }
  }
  return undefined;
}

/** A message as a peek-lock receiver gets it: its body, its id, and the annotations the SDK reads. */
function outgoingOf(message: Message): Outgoing {
  const now = Date.now();
  const seq = ++sequence;
  const tag = Buffer.alloc(16);
  tag.writeUInt32BE(seq >>> 0, 12);
  return {
    tag,
    message: {
      body: message.body,
      // Service Bus gives a message without an id one (the SDK's lock renewal needs it).
      message_id: message.message_id ?? randomUUID(),
      message_annotations: {
        "x-opt-sequence-number": rhea.types.wrap_long(seq),
        "x-opt-enqueued-time": new Date(now),
        "x-opt-locked-until": new Date(now + LOCK_MS),
      },
    },
  };
}

/** The messages one transfer carries: itself, or each message of a batch. */
function messagesOf(message: unknown, format: number): Message[] {
  if (format !== BATCH_FORMAT) return [message as Message];
  const envelope = rhea.message.decode(message as Buffer) as Message;
  const section = envelope.body as { typecode: number; content: unknown; multiple?: boolean };
  if (section.typecode !== DATA) throw new TypeError("a batch's body must be data sections");
  const parts = section.multiple ? (section.content as Buffer[]) : [section.content as Buffer];
  return parts.map((part) => rhea.message.decode(part) as Message);
}

/** Gives a receiver that has credit now the messages that were waiting for one. */
function flush(receiving: Receiving): void {
  while (head < pending.length && creditOf(receiving) > 0) {
    deliver(receiving, pending[head]!);
    pending[head++] = undefined as never;
  }
  if (head === pending.length) {
    pending = [];
    head = 0;
  }
}

/** Hands the waiting messages to the receivers that have credit, taking turns. */
function handOut(): void {
  while (head < pending.length) {
    const receiving = receiverWithCredit();
    if (receiving === undefined) return;
    flush(receiving);
  }
}

const server = container.listen({
  port: 0,
  host: "127.0.0.1",
  // rhea leaves Nagle's algorithm on for the sockets it accepts unless told, as our server is not.
  tcp_no_delay: true,
  receiver_options: { autoaccept: false },
} as never) as Server;

container.on("receiver_open", (context: rhea.EventContext) => {
  const receiver = context.receiver!;
  receiver.set_source(receiver.source);
  receiver.set_target(receiver.target);
  const address = receiver.target?.address ?? "";
  if (address === "$cbs") requestLinks.set(receiver, CBS_ANSWER);
  else if (address.endsWith("/$management")) requestLinks.set(receiver, MANAGEMENT_ANSWER);
  else (receiver as unknown as LinkAttach).local.attach.max_message_size = MAX_MESSAGE_BYTES;
});

container.on("sender_open", (context: rhea.EventContext) => {
  const sender = context.sender!;
  sender.set_source(sender.source);
  sender.set_target(sender.target);
  const address = sender.source?.address ?? "";
  if (address === "$cbs" || address.endsWith("/$management")) {
    let links = replyLinks.get(context.connection);
    if (links === undefined) {
      links = new Map();
      replyLinks.set(context.connection, links);
    }
    links.set(sender.name, sender);
    if (typeof sender.target?.address === "string") links.set(sender.target.address, sender);
    return;
  }
  const receiving: Receiving = { sender, sentThisTick: 0 };
  receivers.push(receiving);
  byLink.set(sender, receiving);
});

container.on("message", (context: rhea.EventContext) => {
  const receiver = context.receiver!;
  const delivery = context.delivery!;
  const message = context.message as unknown as Message;
  const answer = requestLinks.get(receiver);
  if (answer !== undefined) {
    delivery.accept();
    const reply = replyLinks.get(context.connection)?.get(message.reply_to ?? "");
    reply?.send({ application_properties: answer, correlation_id: message.message_id } as never);
    return;
  }
  const format = (delivery as unknown as { format?: number }).format ?? 0;
  for (const one of messagesOf(message, format)) pending.push(outgoingOf(one));
  handOut();
  delivery.accept();
});

const wake = (context: rhea.EventContext) => {
  const receiving = byLink.get(context.sender!);
  if (receiving !== undefined) flush(receiving);
};
container.on("sendable", wake);
container.on("sender_flow", wake);
// An unanswered drain makes the SDK close its link: answered at once, with the credit left unused.
container.on("sender_draining", (context: rhea.EventContext) => context.sender!.set_drained(true));
/** The `accepted` outcome every disposition is settled with (the SDK's rhea warns of a settlement without one). */
const ACCEPTED = (rhea.message as unknown as { accepted(): { described(): unknown } }).accepted().described();
/**
 * Settles a delivery the client has disposed of, and forgets it: the SDK's receivers settle second
 * (rcv-settle-mode 1), so the client never settles after us, and rhea would keep every delivery
 * in the session's buffer (2,048 of them) until the link overflowed it.
 */
function settle(context: rhea.EventContext): void {
  const delivery = context.delivery!;
  delivery.update(true, ACCEPTED);
  (delivery as unknown as { remote_settled: boolean }).remote_settled = true;
}
for (const outcome of ["accepted", "released", "modified", "rejected"]) container.on(outcome, settle);

/** Forgets a link that went. */
function forget(sender: rhea.Sender): void {
  const receiving = byLink.get(sender);
  if (receiving === undefined) return;
  byLink.delete(sender);
  receivers.splice(receivers.indexOf(receiving), 1);
  next = 0;
  giveBack(sender);
}

/**
 * Puts back, first in line, the messages a link that went had not settled (the SDK closes a link
 * whose drain is not answered in 200 ms), so that none is lost; as rhea encoded them.
 */
function giveBack(sender: rhea.Sender): void {
  const {
    entries,
    head: first,
    size,
    capacity,
  } = (sender.session as unknown as SessionInternals).outgoing.deliveries;
  const back: Outgoing[] = [];
  for (let i = 0; i < size; i++) {
    const delivery = entries[(first + i) % capacity];
    if (delivery?.link === sender && delivery.remote_state === undefined)
      back.push({ message: Buffer.concat(delivery.data), tag: delivery.tag });
  }
  if (back.length === 0) return;
  pending = [...back, ...pending.slice(head)];
  head = 0;
  handOut();
}
container.on("sender_close", (context: rhea.EventContext) => forget(context.sender!));
const dropped = (context: rhea.EventContext) => {
  for (const receiving of [...receivers])
    if (receiving.sender.connection === context.connection) forget(receiving.sender);
  replyLinks.delete(context.connection);
};
container.on("connection_close", dropped);
container.on("disconnected", dropped);
container.on("connection_error", () => undefined);
container.on("error", (context: rhea.EventContext) => console.error(context.error));

server.once("listening", () => {
  const { port } = server.address() as AddressInfo;
  console.log(`listening on amqp://127.0.0.1:${port}`);
  console.log(
    `  connection string: Endpoint=sb://localhost:${port};SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true`,
  );
});
process.once("SIGTERM", () => process.exit(0));

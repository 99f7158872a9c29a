import { createRequire } from "node:module";
import rhea from "rhea";

// Guards against three ways a single frame could stop the whole server in rhea 3.0.5 (the
// version pinned), applied once when the endpoint is loaded. Each checks that what it changes
// is there, so an upgrade of rhea that moves it fails loudly at start instead of unguarded.

interface Reader {
  buffer: Buffer;
  position: number;
  read_size_count(width: number): { size: number; count: number };
}

interface SessionLike {
  outgoing: { deliveries: DeliveryBuffer };
  incoming: { deliveries: DeliveryBuffer };
}

interface DeliveryBuffer {
  get_head(): { id: number } | undefined;
  get_tail(): { id: number } | undefined;
}

interface TransportLike {
  peek_size(buffer: Buffer): number | undefined;
  /** The connection the transport reads for, or its SASL layer (which names the connection). */
  handler?: { is_server?: boolean; connection?: { is_server?: boolean } };
}

interface DispositionFrame {
  performative: { role: boolean; first: number; last?: number | null };
}

/** More elements than this past the bytes left is no real compound or array: a declared count of 2^32 null elements fits in 33 bytes. */
const COUNT_SLACK = 4_096;

let applied = false;

/** Installs the guards (once); frames larger than `maxFrameBytes` are refused. */
export function guardRhea(maxFrameBytes: number): void {
  if (applied) return;
  applied = true;
  const require = createRequire(import.meta.url);
  const reader = (rhea.types as unknown as { Reader?: { prototype: Reader } }).Reader?.prototype;
  const session = (require("rhea/lib/session.js") as { prototype?: Record<string, unknown> }).prototype;
  const transport = (require("rhea/lib/transport.js") as { prototype?: TransportLike }).prototype;
  if (
    typeof reader?.read_size_count !== "function" ||
    typeof session?.on_disposition !== "function" ||
    typeof transport?.peek_size !== "function"
  )
    throw new Error("rhea has changed: the frame guards of the Service Bus endpoint no longer apply");

  // rhea announces a frame size but reads whatever size a frame declares, buffering up to 4 GiB
  // for one: a frame past the size announced ends that connection instead. Only the server's
  // connections announce that size: a client in the same process (the SDK in a test) keeps rhea's.
  const peekSize = transport.peek_size;
  transport.peek_size = function (this: TransportLike, buffer: Buffer) {
    const size = peekSize.call(this, buffer);
    const connection = this.handler?.connection ?? this.handler;
    if (size !== undefined && size > maxFrameBytes && connection?.is_server === true)
      throw new Error(`a frame of ${size} bytes, past the ${maxFrameBytes} announced`);
    return size;
  };

  // A compound or array whose declared count is far past its bytes would be read element by
  // element into memory until the process dies: refused, rhea ends that connection instead.
  const readSizeCount = reader.read_size_count;
  reader.read_size_count = function (this: Reader, width: number) {
    const limits = readSizeCount.call(this, width);
    if (limits.count > this.buffer.length - this.position + COUNT_SLACK)
      throw new Error(`a compound of ${limits.count} elements in ${limits.size} bytes`);
    return limits;
  };

  // A disposition names a range of delivery ids and rhea visits each: a range of 2^32 ids would
  // hold the event loop for minutes. Only the ids the session holds can be settled.
  const onDisposition = session.on_disposition as (this: SessionLike, frame: DispositionFrame) => void;
  session.on_disposition = function (this: SessionLike, frame: DispositionFrame) {
    const fields = frame.performative;
    const deliveries = (fields.role ? this.outgoing : this.incoming).deliveries;
    const head = deliveries.get_head();
    const tail = deliveries.get_tail();
    if (head === undefined || tail === undefined) return;
    const first = Math.max(fields.first, head.id);
    const last = Math.min(fields.last ?? fields.first, tail.id);
    if (first > last) return;
    fields.first = first;
    fields.last = last;
    onDisposition.call(this, frame);
  };
}

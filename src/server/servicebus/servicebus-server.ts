import type { AddressInfo, Server, Socket } from "node:net";
import rhea from "rhea";
import type { TimerHandle } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { EngineMessage, SendOutcome } from "../../engine/delivery.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import type { SessionLock } from "../../engine/sessions.js";
import { WriteBatcher } from "../../engine/write-batcher.js";
import { OK, type RequestMetrics } from "../../metrics/request-metrics.js";
import { belongsToTopic } from "../../rules/topic-records.js";
import { type AmqpError, amqpErrorOf, CONDITIONS, entityNotFound } from "./amqp-errors.js";
import { type AmqpMessage, messagesOfTransfer } from "./amqp-message.js";
import { putToken } from "./cbs.js";
import { coalesceWrites } from "./coalesced-writes.js";
import { ConnectionState } from "./connection-state.js";
import { DeliveryLink, type SettleMode } from "./delivery-link.js";
import { DispositionWriter } from "./disposition-writer.js";
import { dotnetTicks } from "./dotnet-time.js";
import { parseEntityPath } from "./entities.js";
import { currentEntity, type ResolvedEntity, resolveEntity } from "./entity-resolver.js";
import { answerManagement, managementOperationOf } from "./management.js";
import { toEngineMessage } from "./message-mapping.js";
import { acceptedOutcome, rejectedOutcome } from "./outcomes.js";
import { guardRhea } from "./rhea-guards.js";
import type { SasKey } from "./sas.js";
import { isHolderGone, newSessionHolder } from "./session-holders.js";
import { SessionRegistry } from "./session-registry.js";
import { findTopic } from "./topic-entities.js";

/** The largest message a sender may send, announced on every sender's attach (the SDK sizes batches from it). */
/** AMQP's standard port, which RabbitMQ holds on many machines. */
const RABBITMQ_PORT = 5672;

export const MAX_MESSAGE_BYTES = 1_048_576;
/** The largest frame, announced in the open (the SDK splits larger transfers into frames of it). */
const MAX_FRAME_BYTES = 262_144;
/** A connection's idle timeout, announced in the open. */
const IDLE_TIMEOUT_MS = 120_000;
/** How long a TCP connection may take to open AMQP before it is cut, by default. */
const OPEN_TIMEOUT_MS = 10_000;

const CBS = "$cbs";
const SESSION_FILTER = "com.microsoft:session-filter";
const LOCKED_UNTIL = "com.microsoft:locked-until-utc";

/** How a Service Bus endpoint is started. */
export interface ServiceBusServerOptions {
  readonly engine: QueueEngine;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** The key SAS tokens are checked against; `null` accepts any token. */
  readonly sasKey: SasKey | null;
  /** Whether a queue is created on first attach (false when entities come from a config file). */
  readonly createQueues: boolean;
  /** Told of what goes wrong inside the server (a client's error is answered to the client, not here). */
  readonly onError?: (error: unknown) => void;
  /** How long a TCP connection may take to open AMQP before it is cut (default 10 000 ms). */
  readonly openTimeoutMs?: number;
  /** Where transfers, settlements and `$cbs`/`$management` requests are counted (`serve`'s shared metrics). */
  readonly requests?: RequestMetrics;
}

/** A link the server will not serve: attached (so the client sees why) and closed at once with `error`. */
function refuse(link: rhea.link, error: AmqpError): void {
  try {
    link.set_source({ address: "" });
    link.set_target({ address: "" });
  } catch {
    // The termini were never set: rhea answers with empty ones.
  }
  link.close(error);
}

/** Echoes a link's termini back, as an attach answer does; false when rhea cannot encode what the client sent. */
function echoTermini(link: rhea.link): boolean {
  try {
    link.set_source(link.source);
    link.set_target(link.target);
    return true;
  } catch {
    return false;
  }
}

/** A terminus's address when it is a text (or an absent terminus, the empty text); `undefined` when it is not one. */
function addressOf(terminus: unknown): string | undefined {
  if (terminus === undefined) return "";
  if (terminus === null || typeof terminus !== "object") return undefined;
  const address = (terminus as { address?: unknown }).address;
  if (address === undefined || address === null) return "";
  return typeof address === "string" ? address : undefined;
}

function malformed(description: string): AmqpError {
  return { condition: CONDITIONS.invalidField, description };
}

function closedConnection(): AmqpError {
  return { condition: CONDITIONS.notAllowed, description: "the connection is closing" };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A message id rhea can carry back as a correlation id: a text, a whole number, or bytes. */
function echoableId(id: unknown): string | number | Buffer | undefined {
  if (typeof id === "string" || Buffer.isBuffer(id)) return id;
  if (typeof id === "number" && Number.isSafeInteger(id) && id >= 0) return id;
  return undefined;
}

/** Tells a sender the largest message it may send, on its attach (the SDK sizes batches from it). */
function announceMaxMessageSize(receiver: rhea.Receiver): void {
  (receiver as unknown as { local: { attach: { max_message_size: number } } }).local.attach.max_message_size =
    MAX_MESSAGE_BYTES;
}

/** Sends a batch to a queue whole or not at all, as on Azure: one message without a session refuses it. */
function sendToQueue(engine: QueueEngine, queue: string, messages: readonly EngineMessage[]): SendOutcome[] {
  if (engine.getQueueRecord(queue)?.fifo === true && messages.some((one) => one.sessionId === undefined))
    throw new QueueError(
      "Validation",
      `The SessionId was not set on a message, and it cannot be sent to the entity ${queue}. Entities that have session support enabled can only receive messages that have the SessionId set.`,
    );
  return engine.send(queue, messages);
}

/** What the server keeps of a link it attached. */
type LinkRole =
  | { readonly kind: "cbs" }
  | { readonly kind: "management"; readonly entity: ResolvedEntity }
  | { readonly kind: "send"; readonly entity: ResolvedEntity }
  | { readonly kind: "publish"; readonly topic: string }
  | { readonly kind: "receive"; readonly delivery: DeliveryLink; readonly session: SessionLock | undefined }
  | { readonly kind: "reply" };

/**
 * An Azure Service Bus-compatible AMQP 1.0 endpoint on the queue engine, which the unmodified
 * `@azure/service-bus` SDK talks to: CBS with SAS tokens, senders (single messages and batches),
 * peek-lock and receive-and-delete receivers with credit and drain, settlement, sessions, the
 * `$management` operations the SDK uses, and each queue's dead-letter sub-queue.
 */
export class ServiceBusServer {
  readonly #options: ServiceBusServerOptions;
  readonly #server: Server;
  readonly #container: rhea.Container;
  readonly #connections = new Map<rhea.Connection, ConnectionState>();
  readonly #dropped = new WeakSet<rhea.Connection>();
  readonly #opened = new WeakSet<Socket>();
  readonly #dispositions = new WeakMap<rhea.Session, DispositionWriter>();
  readonly #links = new Map<rhea.link, LinkRole>();
  readonly #sessions = new SessionRegistry();
  /** Marks the session locks this endpoint takes, so that once it is gone they are known to be free. */
  readonly #holder = newSessionHolder();
  /** The timer that watches each session receiver's lock. */
  readonly #sessionWatch = new Map<rhea.link, TimerHandle>();
  /**
   * Group commit of sends and settlements: what the connections' frames read in one turn of the
   * event loop ask for shares one store transaction, and each is acknowledged once committed.
   */
  readonly #writes: WriteBatcher;

  private constructor(options: ServiceBusServerOptions, container: rhea.Container, server: Server) {
    this.#options = options;
    this.#writes = new WriteBatcher((fn) => options.engine.transaction(fn), setImmediate);
    this.#container = container;
    this.#server = server;
  }

  /** Starts listening; rejects with a `Configuration` error naming the address when it cannot. */
  static async start(options: ServiceBusServerOptions): Promise<ServiceBusServer> {
    guardRhea(MAX_FRAME_BYTES);
    const container = rhea.create_container({ id: "queue-runtime" });
    const host = options.host ?? "127.0.0.1";
    const server = container.listen({
      port: options.port,
      host,
      max_frame_size: MAX_FRAME_BYTES,
      // Transfers and dispositions are small and answered at once: Nagle's wait would hold each.
      tcp_no_delay: true,
      // A client that sends nothing for this long (the SDK's heartbeats keep it alive) is closed.
      idle_time_out: IDLE_TIMEOUT_MS,
      // A modified outcome is abandon or defer here, never the same as released.
      sender_options: { treat_modified_as_released: false },
      receiver_options: { autoaccept: false },
    } as never) as Server;
    const endpoint = new ServiceBusServer(options, container, server);
    endpoint.#wire();
    // Until its AMQP open, a connection has no idle timeout of rhea's: one that never opens is cut.
    server.on("connection", (socket: Socket) => {
      coalesceWrites(socket);
      socket.setTimeout(options.openTimeoutMs ?? OPEN_TIMEOUT_MS, () => {
        if (!endpoint.#opened.has(socket)) socket.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("listening", () => resolve());
      server.once("error", (error: NodeJS.ErrnoException) =>
        reject(
          error.code === "EADDRINUSE"
            ? new QueueError(
                "Configuration",
                `port ${options.port} on ${host} is already in use${options.port === RABBITMQ_PORT ? " (RabbitMQ listens on 5672 on many machines)" : ""}; choose another with --amqp-port (0 picks a free one)`,
              )
            : new QueueError(
                "Configuration",
                `cannot listen on ${host} port ${options.port}: ${error.message}`,
              ),
        ),
      );
    });
    return endpoint;
  }

  /** The port the endpoint listens on. */
  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** The connection string the SDK (and the official emulator's users) connect with. */
  connectionString(host = "localhost"): string {
    const key = this.#options.sasKey ?? { keyName: "RootManageSharedAccessKey", key: "SAS_KEY_VALUE" };
    const port = this.port === 5672 ? "" : `:${this.port}`;
    return `Endpoint=sb://${host}${port};SharedAccessKeyName=${key.keyName};SharedAccessKey=${key.key};UseDevelopmentEmulator=true`;
  }

  /** Stops accepting connections and closes the open ones; locks their receivers hold stay until they end. */
  async close(): Promise<void> {
    for (const [link, role] of this.#links) if (role.kind === "receive") this.#endReceive(link, role);
    for (const connection of this.#connections.keys()) connection.close();
    this.#connections.clear();
    this.#holder.end();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #wire(): void {
    const on = <T extends rhea.EventContext>(event: string, handler: (context: T) => void) =>
      this.#container.on(event, (context: T) => {
        // An exception here would be rhea's unhandled 'error' event, which ends the process.
        try {
          handler(context);
        } catch (error) {
          this.#report(error);
        }
      });
    on("connection_open", (context) => {
      this.#connections.set(context.connection, new ConnectionState());
      const socket = (context.connection as unknown as { socket?: Socket }).socket;
      if (socket !== undefined) {
        this.#opened.add(socket);
        socket.setTimeout(0);
      }
    });
    on("receiver_open", (context) => this.#onClientSender(context.connection, context.receiver!));
    on("sender_open", (context) => this.#onClientReceiver(context.connection, context.sender!));
    on("message", (context) => this.#onMessage(context));
    on("sendable", (context) => this.#deliveryOf(context.sender)?.wake());
    on("sender_flow", (context) => this.#deliveryOf(context.sender)?.wake());
    on("sender_draining", (context) => this.#deliveryOf(context.sender)?.drain());
    for (const outcome of ["accepted", "released", "modified", "rejected"] as const)
      on(outcome, (context) => this.#deliveryOf(context.sender)?.settle(context.delivery!, outcome));
    on("sender_close", (context) => this.#forget(context.sender!));
    on("receiver_close", (context) => this.#forget(context.receiver!));
    const dropped = (context: rhea.EventContext) => this.#drop(context.connection);
    on("connection_close", dropped);
    on("disconnected", dropped);
    on("session_close", (context) => context.session && this.#dropSession(context.session));
    on("connection_error", () => undefined);
    // What a client sent that rhea cannot read ends that connection; the fault is the client's,
    // and unheard, rhea would print every protocol error on stderr.
    on("error", () => undefined);
    on("protocol_error", () => undefined);
  }

  /** A client attached a sender: to `$cbs`, a `$management` node, or a queue. */
  #onClientSender(connection: rhea.Connection, receiver: rhea.Receiver): void {
    const state = this.#state(connection);
    if (state === undefined) {
      refuse(receiver, closedConnection());
      return;
    }
    const address = addressOf(receiver.target);
    if (address === undefined || !echoTermini(receiver)) {
      refuse(receiver, malformed("a sender's target must be a terminus with a text address"));
      return;
    }
    if (address === CBS) {
      this.#links.set(receiver, { kind: "cbs" });
      return;
    }
    if (!this.#isAuthorized(state, address, receiver)) return;
    const topic = this.#topicToPublishTo(address);
    if (topic !== undefined) {
      announceMaxMessageSize(receiver);
      this.#links.set(receiver, { kind: "publish", topic });
      return;
    }
    const entity = this.#resolvedEntity(address, receiver);
    if (entity === undefined) return;
    if (entity.address.management) {
      this.#links.set(receiver, { kind: "management", entity });
      return;
    }
    if (entity.address.deadLetter) {
      receiver.close({
        condition: CONDITIONS.notImplemented,
        description: `cannot send to ${address}: messages reach a dead-letter queue only by being dead-lettered`,
      });
      return;
    }
    if (belongsToTopic(entity.queue.name)) {
      receiver.close({
        condition: CONDITIONS.notAllowed,
        description: `cannot send to ${address}: a subscription receives what is published to its topic`,
      });
      return;
    }
    announceMaxMessageSize(receiver);
    this.#links.set(receiver, { kind: "send", entity });
  }

  /** The name of the topic `address` names (in any case), which a sender publishes to; `undefined` for any other address. */
  #topicToPublishTo(address: string): string | undefined {
    const parsed = parseEntityPath(address);
    if (parsed === undefined || parsed.deadLetter || parsed.management) return undefined;
    return findTopic(this.#options.engine, parsed.queue)?.name;
  }

  /** A client attached a receiver: a reply link (of `$cbs` or `$management`), or a queue's messages. */
  #onClientReceiver(connection: rhea.Connection, sender: rhea.Sender): void {
    const state = this.#state(connection);
    if (state === undefined) {
      refuse(sender, closedConnection());
      return;
    }
    const address = addressOf(sender.source);
    const filter: unknown = sender.source?.filter;
    if (address === undefined || (filter !== undefined && (filter === null || typeof filter !== "object"))) {
      refuse(
        sender,
        malformed("a receiver's source must be a terminus with a text address and a map filter"),
      );
      return;
    }
    if (!echoTermini(sender)) {
      refuse(sender, malformed("a receiver's source or target cannot be echoed"));
      return;
    }
    if (address === CBS || address.toLowerCase().endsWith("/$management")) {
      state.addReplyLink(sender);
      this.#links.set(sender, { kind: "reply" });
      return;
    }
    if (!this.#isAuthorized(state, address, sender)) return;
    const entity = this.#resolvedEntity(address, sender);
    if (entity === undefined) return;
    const remote = (sender as unknown as { remote: { attach?: { snd_settle_mode?: number } } }).remote;
    const settleMode: SettleMode = remote.attach?.snd_settle_mode === 1 ? "receiveAndDelete" : "peekLock";
    if (settleMode === "receiveAndDelete")
      (sender as unknown as { local: { attach: { snd_settle_mode: number } } }).local.attach.snd_settle_mode =
        1;
    const filters = filter as Record<string, unknown> | undefined;
    const session =
      filters !== undefined && SESSION_FILTER in filters
        ? this.#acceptSession(sender, entity, filters[SESSION_FILTER])
        : null;
    if (session === undefined) return;
    if (session === null && entity.target.fifo && !entity.address.deadLetter) {
      sender.close({
        condition: CONDITIONS.notAllowed,
        description: `It is not possible for an entity that requires sessions to create a non-sessionful message receiver: ${address}`,
      });
      return;
    }
    const delivery = new DeliveryLink({
      sender,
      engine: this.#options.engine,
      queue: entity.target.name,
      settleMode,
      dispositions: this.#dispositionsOf(sender.session),
      writes: this.#writes,
      ...(session === null ? {} : { session }),
      onError: (error) => this.#report(error),
      ...(this.#options.requests === undefined ? {} : { requests: this.#options.requests }),
    });
    this.#links.set(sender, { kind: "receive", delivery, session: session ?? undefined });
    if (session !== null) this.#watchSession(sender, session);
  }

  /**
   * Detaches a session receiver once its session lock has ended without renewal, with
   * `session-lock-lost`, as Azure does; a renewal (through `$management`) moves the watch on.
   */
  #watchSession(sender: rhea.Sender, lock: SessionLock): void {
    const { clock } = this.#options.engine;
    const check = () => {
      const role = this.#links.get(sender);
      if (role?.kind !== "receive") return;
      const held = this.#sessions.find(lock.queue, lock.sessionId);
      const now = clock.now();
      if (held?.token === lock.token && held.lockedUntil > now) {
        this.#sessionWatch.set(sender, clock.setTimer(check, held.lockedUntil - now, true));
        return;
      }
      this.#endReceive(sender, role);
      if (sender.is_open())
        sender.close({
          condition: CONDITIONS.sessionLockLost,
          description: `The session lock has expired on the session with id ${lock.sessionId}.`,
        });
    };
    this.#sessionWatch.set(sender, clock.setTimer(check, lock.lockedUntil - clock.now(), true));
  }

  /**
   * Locks the session a session receiver asks for (by id, or the next free one) now, in the
   * attach handler: rhea writes the attach on the next tick, so its filter and lock time must be
   * known here. Resolves `undefined` after closing the link when no session can be locked.
   */
  #acceptSession(sender: rhea.Sender, entity: ResolvedEntity, requested: unknown): SessionLock | undefined {
    const sessionId = typeof requested === "string" && requested.length > 0 ? requested : undefined;
    const refuse = (error: AmqpError) => {
      sender.set_source({ address: sender.source?.address });
      sender.close(error);
      return undefined;
    };
    if (!entity.target.fifo) {
      refuse({
        condition: CONDITIONS.notImplemented,
        description: `It is not possible for an entity that does not require sessions to create a session receiver: ${entity.target.name}`,
      });
      return;
    }
    let lock: SessionLock | undefined;
    try {
      // Service Bus locks a session for its queue's lock duration, as it does a message.
      lock = this.#lockSession(entity.target.name, sessionId, entity.target.lockDurationMs);
    } catch (error) {
      return refuse(amqpErrorOf(error));
    }
    if (lock === undefined) {
      refuse({
        condition: CONDITIONS.timeout,
        description: `no unlocked session with messages is available on ${entity.target.name}`,
      });
      return;
    }
    sender.set_source({ ...sender.source, filter: { [SESSION_FILTER]: lock.sessionId } });
    (
      sender as unknown as { local: { attach: { properties?: Record<string, unknown> } } }
    ).local.attach.properties = {
      [LOCKED_UNTIL]: rhea.types.wrap_long(dotnetTicks(lock.lockedUntil)),
    };
    this.#sessions.hold(lock);
    return lock;
  }

  /**
   * Locks a session (the one named, or the next free one) for this endpoint. When none can be
   * had, the sessions held by an endpoint that is gone (killed, so no client of it is left) are
   * freed, as a clean stop would have, and the accept is tried again.
   */
  #lockSession(queue: string, sessionId: string | undefined, durationMs: number): SessionLock | undefined {
    const { engine } = this.#options;
    const accept = () => engine.tryAcceptSession(queue, sessionId, durationMs, this.#holder.prefix);
    try {
      const lock = accept();
      if (lock !== undefined) return lock;
    } catch (error) {
      if (!QueueError.is(error) || error.code !== "SessionLocked") throw error;
      if (engine.releaseSessions(queue, isHolderGone) === 0) throw error;
      return accept();
    }
    return engine.releaseSessions(queue, isHolderGone) > 0 ? accept() : undefined;
  }

  /** Whether the connection's tokens grant `address`; otherwise the link is closed with why. */
  #isAuthorized(state: ConnectionState, address: string, link: rhea.link): boolean {
    const { engine, sasKey } = this.#options;
    if (sasKey === null || state.isGranted(address, engine.clock.now())) return true;
    link.close({
      condition: CONDITIONS.unauthorized,
      description: `Unauthorized access to '${address}': no valid token for it was put on this connection's $cbs node`,
    });
    return false;
  }

  /** The queue a link's address names; otherwise the link is closed with why. */
  #resolvedEntity(address: string, link: rhea.link): ResolvedEntity | undefined {
    const { engine, createQueues } = this.#options;
    let entity: ResolvedEntity | undefined;
    try {
      entity = resolveEntity(engine, address, createQueues);
    } catch (error) {
      link.close(amqpErrorOf(error));
      return undefined;
    }
    if (entity === undefined) link.close(entityNotFound(address));
    return entity;
  }

  #onMessage(context: rhea.EventContext): void {
    const { receiver, delivery } = context;
    if (delivery === undefined) return;
    if (receiver === undefined) {
      // A transfer on a link the server sends on: the client has the roles the wrong way round.
      delivery.reject({
        condition: CONDITIONS.notAllowed,
        description: "a transfer on a link the server sends on",
      });
      return;
    }
    const role = this.#links.get(receiver);
    const message = context.message as unknown as AmqpMessage;
    const dispositions = this.#dispositionsOf(receiver.session);
    const accept = () => dispositions.settle(delivery, acceptedOutcome(), true);
    const reject = (error: AmqpError) => dispositions.settle(delivery, rejectedOutcome(error), false);
    if (role === undefined) {
      reject({ condition: CONDITIONS.notFound, description: "this link is not attached to anything" });
      return;
    }
    if (role.kind === "cbs" || role.kind === "management") {
      accept();
      this.#answer(context.connection, message, role);
      return;
    }
    if (role.kind !== "send" && role.kind !== "publish") return;
    const counted = this.#options.requests?.start("servicebus_amqp", role.kind);
    const sent = () => {
      accept();
      counted?.(OK);
    };
    const refused = (error: AmqpError) => {
      reject(error);
      counted?.(error.condition);
    };
    const { engine } = this.#options;
    const queue = role.kind === "send" ? currentEntity(engine, role.entity).queue : undefined;
    const topic = role.kind === "publish" ? role.topic : undefined;
    let messages: EngineMessage[];
    try {
      const format = (delivery as unknown as { format?: number }).format ?? 0;
      const now = engine.clock.now();
      // A subscription's queue deduplicates the copies it gets as its own settings say.
      const deduplicate = queue === undefined || queue.deduplicationWindowMs > 0;
      messages = messagesOfTransfer(message, format).map((one) => toEngineMessage(one, now, deduplicate));
    } catch (error) {
      // What cannot be decoded is the client's malformed message, not a fault of the server.
      refused(
        QueueError.is(error)
          ? amqpErrorOf(error)
          : { condition: CONDITIONS.decode, description: messageOf(error) },
      );
      return;
    }
    const tooLarge = messages.find((one) => one.body.byteLength > MAX_MESSAGE_BYTES);
    if (tooLarge !== undefined) {
      refused({
        condition: CONDITIONS.messageSizeExceeded,
        description: `The received message (size ${tooLarge.body.byteLength} bytes) exceeds the limit (${MAX_MESSAGE_BYTES} bytes) currently allowed on the link.`,
      });
      return;
    }
    this.#writes
      .run(() => {
        const outcomes =
          topic !== undefined
            ? engine.topics.publish(topic, messages, MAX_MESSAGE_BYTES, { whole: true })
            : sendToQueue(engine, queue!.name, messages);
        const failed = outcomes.find((outcome) => !outcome.ok);
        if (failed !== undefined && !failed.ok) throw failed.error;
      })
      .then(sent, (error: unknown) => {
        if (!QueueError.is(error)) this.#report(error);
        refused(amqpErrorOf(error));
      });
  }

  /** Answers a request on `$cbs` or a `$management` node, on the reply link its `reply_to` names. */
  #answer(connection: rhea.Connection, request: AmqpMessage, role: LinkRole): void {
    const state = this.#connections.get(connection);
    if (state === undefined) return;
    const { engine, sasKey } = this.#options;
    const operation = role.kind === "cbs" ? "put-token" : managementOperationOf(request);
    const counted = this.#options.requests?.start("servicebus_amqp", operation);
    const reply = (() => {
      if (role.kind === "cbs") {
        const answer = putToken(state, request, sasKey, engine.clock.now());
        counted?.(answer.statusCode < 300 ? OK : String(answer.statusCode));
        return {
          application_properties: {
            "status-code": answer.statusCode,
            "status-description": answer.description,
          },
        };
      }
      if (role.kind !== "management") return undefined;
      const entity = currentEntity(engine, role.entity);
      const answer = answerManagement(
        {
          engine,
          queue: entity.target,
          sessions: this.#sessions,
          deduplicate: entity.queue.deduplicationWindowMs > 0,
        },
        request,
      );
      counted?.(answer.errorCondition ?? (answer.statusCode < 300 ? OK : String(answer.statusCode)));
      return {
        application_properties: {
          statusCode: answer.statusCode,
          statusDescription: answer.description,
          ...(answer.errorCondition === undefined ? {} : { errorCondition: answer.errorCondition }),
        },
        ...(answer.body === undefined ? {} : { body: answer.body }),
      };
    })();
    const link = state?.replyLink(request.reply_to);
    if (reply === undefined || link === undefined || !link.is_open()) return;
    // A request whose id AMQP cannot carry back gets its answer uncorrelated rather than none.
    const correlation = echoableId(request.message_id);
    link.send({ ...reply, ...(correlation === undefined ? {} : { correlation_id: correlation }) } as never);
  }

  #dispositionsOf(session: rhea.Session): DispositionWriter {
    let writer = this.#dispositions.get(session);
    if (writer === undefined) {
      writer = new DispositionWriter();
      this.#dispositions.set(session, writer);
    }
    return writer;
  }

  #deliveryOf(sender: rhea.Sender | undefined): DeliveryLink | undefined {
    if (sender === undefined) return undefined;
    const role = this.#links.get(sender);
    return role?.kind === "receive" ? role.delivery : undefined;
  }

  #forget(link: rhea.link): void {
    const role = this.#links.get(link);
    if (role === undefined) return;
    this.#links.delete(link);
    if (role.kind === "receive") this.#endReceive(link, role);
    if (role.kind === "reply") this.#connections.get(link.connection)?.removeReplyLink(link as rhea.Sender);
  }

  /** A receiver went: its waits end, and its session is free for the next receiver at once. */
  #endReceive(link: rhea.link, role: Extract<LinkRole, { kind: "receive" }>): void {
    this.#links.delete(link);
    this.#sessionWatch.get(link)?.cancel();
    this.#sessionWatch.delete(link);
    role.delivery.close();
    if (role.session === undefined) return;
    const held = this.#sessions.find(role.session.queue, role.session.sessionId) ?? role.session;
    this.#sessions.release(held);
    try {
      this.#options.engine.closeSession(held);
    } catch {
      // Its lock had ended already: nothing is held.
    }
  }

  /** A connection went: every link it had is forgotten, and it takes no more. */
  #drop(connection: rhea.Connection): void {
    this.#dropped.add(connection);
    for (const link of [...this.#links.keys()]) if (link.connection === connection) this.#forget(link);
    this.#connections.delete(connection);
  }

  /** A session the client ended: its links are forgotten (rhea reports no link close for them). */
  #dropSession(session: rhea.Session): void {
    for (const link of [...this.#links.keys()]) if (link.session === session) this.#forget(link);
  }

  /** The state of an open connection; `undefined` once it has closed (a late attach of it is refused). */
  #state(connection: rhea.Connection): ConnectionState | undefined {
    if (this.#dropped.has(connection)) return undefined;
    let state = this.#connections.get(connection);
    if (state === undefined) {
      state = new ConnectionState();
      this.#connections.set(connection, state);
    }
    return state;
  }

  #report(error: unknown): void {
    this.#options.onError?.(error);
  }
}

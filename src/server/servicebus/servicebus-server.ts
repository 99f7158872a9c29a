import type { AddressInfo, Server } from "node:net";
import rhea from "rhea";
import type { TimerHandle } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import type { SessionLock } from "../../engine/sessions.js";
import { type AmqpError, amqpErrorOf, CONDITIONS, entityNotFound } from "./amqp-errors.js";
import { type AmqpMessage, messagesOfTransfer } from "./amqp-message.js";
import { putToken } from "./cbs.js";
import { ConnectionState } from "./connection-state.js";
import { DeliveryLink, type SettleMode } from "./delivery-link.js";
import { dotnetTicks } from "./dotnet-time.js";
import { type ResolvedEntity, resolveEntity } from "./entity-resolver.js";
import { answerManagement } from "./management.js";
import { toEngineMessage } from "./message-mapping.js";
import type { SasKey } from "./sas.js";
import { SessionRegistry } from "./session-registry.js";

/** The largest message a sender may send, announced on every sender's attach (the SDK sizes batches from it). */
export const MAX_MESSAGE_BYTES = 1_048_576;

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
}

/** What the server keeps of a link it attached. */
type LinkRole =
  | { readonly kind: "cbs" }
  | { readonly kind: "management"; readonly entity: ResolvedEntity }
  | { readonly kind: "send"; readonly entity: ResolvedEntity }
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
  readonly #links = new Map<rhea.link, LinkRole>();
  readonly #sessions = new SessionRegistry();
  /** The timer that watches each session receiver's lock. */
  readonly #sessionWatch = new Map<rhea.link, TimerHandle>();

  private constructor(options: ServiceBusServerOptions, container: rhea.Container, server: Server) {
    this.#options = options;
    this.#container = container;
    this.#server = server;
  }

  /** Starts listening; rejects with a `Configuration` error naming the address when it cannot. */
  static async start(options: ServiceBusServerOptions): Promise<ServiceBusServer> {
    const container = rhea.create_container({ id: "queue-runtime" });
    const host = options.host ?? "127.0.0.1";
    const server = container.listen({
      port: options.port,
      host,
      // A modified outcome is abandon or defer here, never the same as released.
      sender_options: { treat_modified_as_released: false },
      receiver_options: { autoaccept: false },
    } as never) as Server;
    const endpoint = new ServiceBusServer(options, container, server);
    endpoint.#wire();
    await new Promise<void>((resolve, reject) => {
      server.once("listening", () => resolve());
      server.once("error", (error: NodeJS.ErrnoException) =>
        reject(
          error.code === "EADDRINUSE"
            ? new QueueError(
                "Configuration",
                `port ${options.port} on ${host} is already in use (RabbitMQ listens on 5672 on many machines); choose another with --amqp-port (0 picks a free one)`,
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
    on("connection_error", () => undefined);
    on("error", (context) => this.#report(context.error));
  }

  /** A client attached a sender: to `$cbs`, a `$management` node, or a queue. */
  #onClientSender(connection: rhea.Connection, receiver: rhea.Receiver): void {
    const state = this.#state(connection);
    const address = receiver.target?.address ?? "";
    receiver.set_source(receiver.source);
    receiver.set_target(receiver.target);
    if (address === CBS) {
      this.#links.set(receiver, { kind: "cbs" });
      return;
    }
    const entity = this.#authorizedEntity(state, address, receiver);
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
    (
      receiver as unknown as { local: { attach: { max_message_size: number } } }
    ).local.attach.max_message_size = MAX_MESSAGE_BYTES;
    this.#links.set(receiver, { kind: "send", entity });
  }

  /** A client attached a receiver: a reply link (of `$cbs` or `$management`), or a queue's messages. */
  #onClientReceiver(connection: rhea.Connection, sender: rhea.Sender): void {
    const state = this.#state(connection);
    const address = sender.source?.address ?? "";
    sender.set_target(sender.target);
    if (address === CBS || address.toLowerCase().endsWith("/$management")) {
      sender.set_source(sender.source);
      state.addReplyLink(sender);
      this.#links.set(sender, { kind: "reply" });
      return;
    }
    const entity = this.#authorizedEntity(state, address, sender);
    if (entity === undefined) return;
    const remote = (sender as unknown as { remote: { attach?: { snd_settle_mode?: number } } }).remote;
    const settleMode: SettleMode = remote.attach?.snd_settle_mode === 1 ? "receiveAndDelete" : "peekLock";
    if (settleMode === "receiveAndDelete")
      (sender as unknown as { local: { attach: { snd_settle_mode: number } } }).local.attach.snd_settle_mode =
        1;
    const filter = sender.source?.filter as Record<string, unknown> | undefined;
    const session =
      filter !== undefined && SESSION_FILTER in filter
        ? this.#acceptSession(sender, entity, filter[SESSION_FILTER])
        : null;
    if (session === undefined) return;
    if (session === null && entity.target.fifo && !entity.address.deadLetter) {
      sender.set_source(sender.source);
      sender.close({
        condition: CONDITIONS.notAllowed,
        description: `It is not possible for an entity that requires sessions to create a non-sessionful message receiver: ${address}`,
      });
      return;
    }
    if (session === null) sender.set_source(sender.source);
    const delivery = new DeliveryLink({
      sender,
      engine: this.#options.engine,
      queue: entity.target.name,
      settleMode,
      ...(session === null ? {} : { session }),
      onError: (error) => this.#report(error),
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
    const { engine } = this.#options;
    const sessionId = typeof requested === "string" && requested.length > 0 ? requested : undefined;
    const refuse = (error: AmqpError) => {
      sender.set_source({ address: sender.source?.address });
      sender.close(error);
      return undefined;
    };
    if (!entity.target.fifo)
      return refuse({
        condition: CONDITIONS.notImplemented,
        description: `It is not possible for an entity that does not require sessions to create a session receiver: ${entity.target.name}`,
      });
    let lock: SessionLock | undefined;
    try {
      // Service Bus locks a session for its queue's lock duration, as it does a message.
      lock = engine.tryAcceptSession(entity.target.name, sessionId, entity.target.lockDurationMs);
    } catch (error) {
      return refuse(amqpErrorOf(error));
    }
    if (lock === undefined)
      return refuse({
        condition: CONDITIONS.timeout,
        description: `no unlocked session with messages is available on ${entity.target.name}`,
      });
    sender.set_source({ ...sender.source, filter: { [SESSION_FILTER]: lock.sessionId } });
    (
      sender as unknown as { local: { attach: { properties?: Record<string, unknown> } } }
    ).local.attach.properties = {
      [LOCKED_UNTIL]: rhea.types.wrap_long(dotnetTicks(lock.lockedUntil)),
    };
    this.#sessions.hold(lock);
    return lock;
  }

  /** The queue a link's address names when the connection's tokens grant it; otherwise the link is closed with why. */
  #authorizedEntity(state: ConnectionState, address: string, link: rhea.link): ResolvedEntity | undefined {
    const { engine, sasKey, createQueues } = this.#options;
    if (sasKey !== null && !state.isGranted(address, engine.clock.now())) {
      link.close({
        condition: CONDITIONS.unauthorized,
        description: `Unauthorized access to '${address}': no valid token for it was put on this connection's $cbs node`,
      });
      return undefined;
    }
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
    const receiver = context.receiver!;
    const role = this.#links.get(receiver);
    const delivery = context.delivery!;
    const message = context.message as unknown as AmqpMessage;
    if (role === undefined) {
      delivery.reject({
        condition: CONDITIONS.notFound,
        description: "this link is not attached to anything",
      });
      return;
    }
    if (role.kind === "cbs" || role.kind === "management") {
      delivery.accept();
      this.#answer(context.connection, message, role);
      return;
    }
    if (role.kind !== "send") return;
    const { engine } = this.#options;
    try {
      const format = (delivery as unknown as { format?: number }).format ?? 0;
      const now = engine.clock.now();
      const deduplicate = role.entity.queue.deduplicationWindowMs > 0;
      const messages = messagesOfTransfer(message, format).map((one) =>
        toEngineMessage(one, now, deduplicate),
      );
      for (const one of messages)
        if (one.body.byteLength > MAX_MESSAGE_BYTES)
          throw new QueueError(
            "MessageTooLarge",
            `The received message (size ${one.body.byteLength} bytes) exceeds the limit (${MAX_MESSAGE_BYTES} bytes) currently allowed on the link.`,
          );
      const outcomes = engine.send(role.entity.queue.name, messages);
      const failed = outcomes.find((outcome) => !outcome.ok);
      if (failed !== undefined && !failed.ok) throw failed.error;
      delivery.accept();
    } catch (error) {
      delivery.reject(amqpErrorOf(error));
    }
  }

  /** Answers a request on `$cbs` or a `$management` node, on the reply link its `reply_to` names. */
  #answer(connection: rhea.Connection, request: AmqpMessage, role: LinkRole): void {
    const state = this.#state(connection);
    const { engine, sasKey } = this.#options;
    const reply = (() => {
      if (role.kind === "cbs") {
        const answer = putToken(state, request, sasKey, engine.clock.now());
        return {
          application_properties: {
            "status-code": answer.statusCode,
            "status-description": answer.description,
          },
        };
      }
      if (role.kind !== "management") return undefined;
      const answer = answerManagement(
        {
          engine,
          queue: role.entity.target,
          sessions: this.#sessions,
          deduplicate: role.entity.queue.deduplicationWindowMs > 0,
        },
        request,
      );
      return {
        application_properties: {
          statusCode: answer.statusCode,
          statusDescription: answer.description,
          ...(answer.errorCondition === undefined ? {} : { errorCondition: answer.errorCondition }),
        },
        ...(answer.body === undefined ? {} : { body: answer.body }),
      };
    })();
    const link = state.replyLink(request.reply_to);
    if (reply === undefined || link === undefined || !link.is_open()) return;
    link.send({ ...reply, correlation_id: request.message_id } as never);
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

  /** A connection went: every link it had is forgotten. */
  #drop(connection: rhea.Connection): void {
    for (const link of [...this.#links.keys()]) if (link.connection === connection) this.#forget(link);
    this.#connections.delete(connection);
  }

  #state(connection: rhea.Connection): ConnectionState {
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

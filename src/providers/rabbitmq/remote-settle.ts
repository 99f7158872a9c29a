import { randomUUID } from "node:crypto";
import type { Channel, ConsumeMessage } from "amqplib";
import { QueueError, type QueueErrorCode } from "../../core/errors.js";
import type { RabbitConnection } from "./connection.js";

/** What one client asks the client holding a delivery to do with it. */
export type SettleRequest =
  | { readonly op: "complete"; readonly id: string }
  | { readonly op: "abandon"; readonly id: string; readonly delayMs: number }
  | { readonly op: "deadLetter"; readonly id: string; readonly reason: string; readonly description?: string }
  | { readonly op: "renew"; readonly id: string };

type SettleReply =
  | { readonly ok: true; readonly expiresAtMs?: number }
  | { readonly ok: false; readonly code: QueueErrorCode; readonly message: string };

/** RabbitMQ's direct reply-to pseudo-queue: replies come straight back on the asking channel. */
const REPLY_TO = "amq.rabbitmq.reply-to";

/**
 * Settling a delivery that another client holds. An AMQP delivery can be acknowledged only on the
 * channel it came on, so a receipt names the holder's control queue (exclusive to its connection,
 * gone with it) and the holder settles on the asker's behalf, answering through direct reply-to. A
 * request to a control queue that is gone comes back unroutable: the holder's connection ended, the
 * broker gave its deliveries back, and the receipt is `InvalidReceipt`.
 */
export class RemoteSettle {
  readonly #connection: RabbitConnection;
  readonly #handle: (request: SettleRequest) => Promise<number | undefined>;
  #serving: Promise<string> | undefined;
  #asking: Promise<Channel> | undefined;
  readonly #pending = new Map<
    string,
    { resolve: (reply: SettleReply) => void; reject: (error: unknown) => void }
  >();

  constructor(connection: RabbitConnection, handle: (request: SettleRequest) => Promise<number | undefined>) {
    this.#connection = connection;
    this.#handle = handle;
    connection.onLost(() => this.#reset());
  }

  /** This client's control queue, made (with its consumer) on first use on each connection. */
  address(): Promise<string> {
    this.#serving ??= (async () => {
      const channel = await this.#connection.channel();
      try {
        const { queue } = await channel.assertQueue("", {
          exclusive: true,
          autoDelete: true,
          durable: false,
        });
        await channel.consume(queue, (message) => void this.#serve(channel, message), { noAck: true });
        return queue;
      } catch (error) {
        await channel.close().catch(() => undefined);
        throw this.#connection.failure(error, "open the control queue");
      }
    })().catch((error: unknown) => {
      this.#serving = undefined;
      throw error;
    });
    return this.#serving;
  }

  async #serve(channel: Channel, message: ConsumeMessage | null): Promise<void> {
    if (message === null) return;
    let reply: SettleReply;
    try {
      const request = JSON.parse(message.content.toString("utf8")) as SettleRequest;
      const expiresAtMs = await this.#handle(request);
      reply = expiresAtMs === undefined ? { ok: true } : { ok: true, expiresAtMs };
    } catch (error) {
      const failure = QueueError.is(error) ? error : this.#connection.failure(error, "settle");
      reply = { ok: false, code: failure.code, message: failure.message };
    }
    const replyTo = message.properties.replyTo as string | undefined;
    if (replyTo === undefined) return;
    try {
      channel.sendToQueue(replyTo, Buffer.from(JSON.stringify(reply)), {
        correlationId: message.properties.correlationId as string,
      });
    } catch {
      // The asker learns from its own timeout; the settle itself is done.
    }
  }

  /** Asks the holder behind `address` to do `request`; resolves the new lock expiry of a renewal. */
  async ask(address: string, request: SettleRequest, timeoutMs: number): Promise<number | undefined> {
    const channel = await this.#askingChannel();
    const correlationId = randomUUID();
    const reply = new Promise<SettleReply>((resolve, reject) =>
      this.#pending.set(correlationId, { resolve, reject }),
    );
    reply.catch(() => undefined);
    const timer = setTimeout(() => {
      this.#pending
        .get(correlationId)
        ?.reject(new QueueError("Timeout", `the holder of this receipt did not answer in ${timeoutMs} ms`));
    }, timeoutMs);
    try {
      channel.sendToQueue(address, Buffer.from(JSON.stringify(request)), {
        correlationId,
        replyTo: REPLY_TO,
        mandatory: true,
      });
      const answer = await reply;
      if (answer.ok) return answer.expiresAtMs;
      throw new QueueError(answer.code, answer.message);
    } finally {
      clearTimeout(timer);
      this.#pending.delete(correlationId);
    }
  }

  #askingChannel(): Promise<Channel> {
    this.#asking ??= (async () => {
      const channel = await this.#connection.channel();
      channel.on("return", (message: ConsumeMessage) => {
        const id = message.properties.correlationId as string;
        this.#pending
          .get(id)
          ?.reject(
            new QueueError(
              "InvalidReceipt",
              "the client that received this message is gone; its lock ended with it",
            ),
          );
      });
      channel.on("close", () => {
        if (this.#asking !== undefined) this.#asking = undefined;
      });
      await channel.consume(
        REPLY_TO,
        (message) => {
          if (message === null) return;
          const id = message.properties.correlationId as string;
          try {
            this.#pending.get(id)?.resolve(JSON.parse(message.content.toString("utf8")) as SettleReply);
          } catch (error) {
            this.#pending.get(id)?.reject(error);
          }
        },
        { noAck: true },
      );
      return channel;
    })().catch((error: unknown) => {
      this.#asking = undefined;
      throw this.#connection.failure(error, "open the settling channel");
    });
    return this.#asking;
  }

  #reset(): void {
    this.#serving = undefined;
    this.#asking = undefined;
    for (const waiter of this.#pending.values())
      waiter.reject(
        new QueueError("ConnectionFailed", `lost the connection to RabbitMQ at ${this.#connection.address}`),
      );
  }
}

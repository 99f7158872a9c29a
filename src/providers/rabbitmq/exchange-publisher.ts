import type { ConfirmChannel, Options } from "amqplib";
import { QueueError } from "../../core/errors.js";
import { isNotFound, type RabbitConnection } from "./connection.js";

/** A confirm channel and, once the broker closed it, why (a missing exchange is 404). */
interface TopicChannel {
  readonly channel: ConfirmChannel;
  readonly closed: { by?: unknown };
}

/**
 * Publishes to exchanges (topics) on a confirm channel of its own: a publish to an exchange that
 * is gone closes its channel (404), which must not fail the sends under way on the connection's
 * queue publisher. A publish resolves once the broker confirmed it, that is once every queue it
 * was routed to has it (none, for a message no binding matches).
 */
export class ExchangePublisher {
  readonly #connection: RabbitConnection;
  #channel: Promise<TopicChannel> | undefined;

  constructor(connection: RabbitConnection) {
    this.#connection = connection;
  }

  /** Publishes `content` to `exchange` (whose missing is `QueueNotFound` naming `topic`); resolves once confirmed. */
  async publish(exchange: string, topic: string, content: Buffer, options: Options.Publish): Promise<void> {
    const { channel, closed } = await this.#open();
    await new Promise<void>((resolve, reject) => {
      const failed = (error: unknown): void => {
        if (isNotFound(closed.by) || isNotFound(error))
          reject(new QueueError("QueueNotFound", `topic ${topic} does not exist`, { cause: error }));
        else reject(this.#connection.failure(error, `publish to topic ${topic}`));
      };
      try {
        channel.publish(exchange, "", content, options, (error: unknown) => {
          if (error === null || error === undefined) resolve();
          else failed(error);
        });
      } catch (error) {
        failed(error);
      }
    });
  }

  #open(): Promise<TopicChannel> {
    if (this.#channel !== undefined) return this.#channel;
    const opening = (async (): Promise<TopicChannel> => {
      const model = await this.#connection.model();
      try {
        const channel = await model.createConfirmChannel();
        const opened: TopicChannel = { channel, closed: {} };
        channel.on("error", (error: unknown) => {
          opened.closed.by = error;
        });
        channel.on("close", () => {
          if (this.#channel === opening) this.#channel = undefined;
        });
        return opened;
      } catch (error) {
        throw this.#connection.failure(error, "open the topic publishing channel");
      }
    })();
    this.#channel = opening;
    opening.catch(() => {
      if (this.#channel === opening) this.#channel = undefined;
    });
    return opening;
  }
}

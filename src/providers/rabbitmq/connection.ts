import amqp, { type Channel, type ChannelModel, type ConfirmChannel, type Options } from "amqplib";
import { QueueError, SOCKET_ERROR_CODES } from "../../core/errors.js";

/** The AMQP reply code of a failed channel or connection operation, when amqplib gives one. */
export function replyCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "number") return code;
  // A call under way when its channel closed is rejected with the close frame itself.
  const frame = (error as { fields?: { replyCode?: unknown } } | null)?.fields?.replyCode;
  return typeof frame === "number" ? frame : undefined;
}

/** True when the broker said that a queue does not exist (404 NOT_FOUND). */
export function isNotFound(error: unknown): boolean {
  return replyCode(error) === 404;
}

/** The address of a broker URL without its credentials, for error messages. */
export function brokerAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return "the configured broker";
  }
}

/**
 * One AMQP connection, made on first use and made again on the first use after it was lost; what
 * was built on a lost connection (consumers, receipts, session locks) is told through `onLost`, as
 * the broker has already given back what it held. While the broker cannot be reached every call
 * fails with `ConnectionFailed` naming the broker's address, and the client's retries call again.
 */
export class RabbitConnection {
  readonly address: string;
  readonly #url: string;
  readonly #connectTimeoutMs: number;
  #model: ChannelModel | undefined;
  #connecting: Promise<ChannelModel> | undefined;
  #publisher: Promise<Publisher> | undefined;
  readonly #lost = new Set<() => void>();
  #closed = false;

  constructor(url: string, connectTimeoutMs: number) {
    this.#url = url;
    this.address = brokerAddress(url);
    this.#connectTimeoutMs = connectTimeoutMs;
  }

  /** The live connection, connecting when there is none. */
  model(): Promise<ChannelModel> {
    if (this.#closed) return Promise.reject(new QueueError("ClientClosed", "the rabbitmq client is closed"));
    if (this.#model !== undefined) return Promise.resolve(this.#model);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(): Promise<ChannelModel> {
    let model: ChannelModel;
    try {
      // Without noDelay, Nagle's algorithm holds each small frame back for the peer's delayed ack
      // (40 ms a basic.get on a quorum queue).
      model = await amqp.connect(this.#url, { timeout: this.#connectTimeoutMs, noDelay: true });
    } catch (error) {
      throw this.failure(error, "connect");
    }
    if (this.#closed) {
      await model.close().catch(() => undefined);
      throw new QueueError("ClientClosed", "the rabbitmq client is closed");
    }
    // An error is always followed by close; the close is where the loss is handled.
    model.on("error", () => undefined);
    model.on("close", () => {
      if (this.#model !== model) return;
      this.#model = undefined;
      this.#publisher = undefined;
      for (const listener of [...this.#lost]) listener();
    });
    this.#model = model;
    return model;
  }

  /** Calls `listener` each time the connection is lost; returns the way to stop. */
  onLost(listener: () => void): () => void {
    this.#lost.add(listener);
    return () => this.#lost.delete(listener);
  }

  /** A new channel on the live connection; its errors close it and are reported by the call that caused them. */
  async channel(): Promise<Channel> {
    const model = await this.model();
    try {
      const channel = await model.createChannel();
      channel.on("error", () => undefined);
      return channel;
    } catch (error) {
      throw this.failure(error, "open a channel");
    }
  }

  /** Runs `work` on a channel of its own, closed after: a failed operation closes only it. */
  async withChannel<T>(work: (channel: Channel) => Promise<T>): Promise<T> {
    const channel = await this.channel();
    try {
      return await work(channel);
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  /** The confirming publisher of the live connection. */
  publisher(): Promise<Publisher> {
    this.#publisher ??= this.model().then(
      async (model) => {
        try {
          const channel = await model.createConfirmChannel();
          const publisher = new Publisher(channel, this);
          channel.on("error", () => undefined);
          channel.on("close", () => {
            if (this.#publisher !== undefined && publisher.channel === channel) this.#publisher = undefined;
          });
          return publisher;
        } catch (error) {
          this.#publisher = undefined;
          throw this.failure(error, "open the publishing channel");
        }
      },
      (error: unknown) => {
        this.#publisher = undefined;
        throw error;
      },
    );
    return this.#publisher;
  }

  /** Whether a connection is open now. */
  get connected(): boolean {
    return this.#model !== undefined;
  }

  /**
   * A QueueError for a failure of `what`: a lost or refused connection is `ConnectionFailed` naming
   * the broker, an access refusal `PermissionDenied`, anything else `Provider`.
   */
  failure(error: unknown, what: string): QueueError {
    if (QueueError.is(error)) return error;
    const frameText = (error as { fields?: { replyText?: unknown } } | null)?.fields?.replyText;
    const message =
      error instanceof Error ? error.message : typeof frameText === "string" ? frameText : String(error);
    const code = replyCode(error) ?? (error as { code?: unknown } | null)?.code;
    if (this.#closed)
      return new QueueError("ClientClosed", "the rabbitmq client is closed", { cause: error });
    if (
      (typeof code === "string" && SOCKET_ERROR_CODES.has(code)) ||
      /closed|connection|socket|ECONN|EPIPE|timeout|heartbeat/i.test(message) ||
      code === 320 ||
      code === 541
    )
      return new QueueError("ConnectionFailed", `cannot ${what} on RabbitMQ at ${this.address}: ${message}`, {
        cause: error,
      });
    if (code === 403 && /login|auth|credentials/i.test(message))
      return new QueueError("Authentication", `RabbitMQ at ${this.address} refused the login`, {
        cause: error,
      });
    if (code === 403) return new QueueError("PermissionDenied", `${what}: ${message}`, { cause: error });
    return new QueueError("Provider", `${what} on RabbitMQ at ${this.address}: ${message}`, {
      cause: error,
      isTransient: false,
      ...(typeof code === "number" ? { providerCode: String(code) } : {}),
    });
  }

  /** Closes the connection and stops connecting again. */
  async close(): Promise<void> {
    if (this.#closed) return;
    const model = this.#model ?? (await this.#connecting?.catch(() => undefined));
    this.#closed = true;
    this.#model = undefined;
    this.#lost.clear();
    if (model === undefined) return;
    // A connection whose socket died unnoticed never answers its close: its socket is destroyed instead.
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      model.close().then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!answered) (model.connection as unknown as { stream?: { destroy(): void } }).stream?.destroy();
  }
}

/** How long a close waits for the broker's answer before the socket is destroyed. */
const CLOSE_TIMEOUT_MS = 2_000;

/** Why a publish did not reach a queue. */
export class Unroutable extends Error {}

/**
 * The connection's confirm channel: a publish resolves only once the broker confirmed it, and a
 * publish to a queue that does not exist (mandatory, returned) rejects with {@link Unroutable}.
 */
export class Publisher {
  readonly channel: ConfirmChannel;
  readonly #connection: RabbitConnection;
  readonly #returned = new Set<string>();
  #serial = 0;

  constructor(channel: ConfirmChannel, connection: RabbitConnection) {
    this.channel = channel;
    this.#connection = connection;
    // The broker sends basic.return before the confirm of the same message: noted here, judged at the confirm.
    channel.on("return", (message: { properties: { headers?: Record<string, unknown> } }) => {
      const serial = message.properties.headers?.[PUBLISH_SERIAL];
      if (typeof serial === "string") this.#returned.add(serial);
    });
  }

  /** Publishes `content` to `queue` through the default exchange; resolves when the broker has it. */
  publish(queue: string, content: Buffer, options: Options.Publish): Promise<void> {
    const serial = `${++this.#serial}`;
    const headers = { ...options.headers, [PUBLISH_SERIAL]: serial };
    return new Promise<void>((resolve, reject) => {
      try {
        this.channel.sendToQueue(
          queue,
          content,
          { ...options, headers, mandatory: true },
          (error: unknown) => {
            const returned = this.#returned.delete(serial);
            if (error !== null && error !== undefined)
              reject(this.#connection.failure(error, `publish to ${queue}`));
            else if (returned) reject(new Unroutable(`queue ${queue} does not exist`));
            else resolve();
          },
        );
      } catch (error) {
        reject(this.#connection.failure(error, `publish to ${queue}`));
      }
    });
  }
}

/** The header that matches a returned message to its publish; removed again when read. */
export const PUBLISH_SERIAL = "qr-publish";

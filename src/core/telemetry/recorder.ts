import type { Attributes, Context, Link, Span, Tracer } from "@opentelemetry/api";
import type { ReceivedMessage } from "../message.js";
import type { OutgoingMessage } from "../provider.js";
import { ATTRIBUTES, CONTEXT_LEFT_OUT, type SettleName } from "./attribute-names.js";
import { extractFrom, injectInto } from "./carrier.js";
import type { Instruments } from "./instruments.js";
import { describeOutgoing, describeReceived } from "./message-attributes.js";
import { errorType, type Naming, withErrorType } from "./naming.js";
import type { OpenTelemetry } from "./open-telemetry.js";
import { ProcessRun } from "./process-run.js";

/** A high-resolution clock in milliseconds since the epoch: what span times and durations are read from. */
export type TelemetryClock = () => number;

/** `performance`'s clock, as the OpenTelemetry SDK reads it. */
export const performanceClock: TelemetryClock = () => performance.timeOrigin + performance.now();

/**
 * The instrumented operations of one client while an SDK (or a given provider) records: spans
 * through `tracer` when there is one, measurements through `instruments` when there are.
 */
export class Recorder {
  readonly api: OpenTelemetry;
  readonly tracer: Tracer | undefined;
  readonly instruments: Instruments | undefined;
  readonly naming: Naming;
  readonly now: TelemetryClock;

  constructor(
    api: OpenTelemetry,
    tracer: Tracer | undefined,
    instruments: Instruments | undefined,
    naming: Naming,
    now: TelemetryClock,
  ) {
    this.api = api;
    this.tracer = tracer;
    this.instruments = instruments;
    this.naming = naming;
    this.now = now;
  }

  /**
   * Sends `messages` through `send` under a `send` span (`create` spans for the messages of a
   * batch, linked from it), each message carrying the context its consumer's span will follow.
   */
  async send(
    name: "send" | "publish",
    destination: string,
    messages: readonly OutgoingMessage[],
    send: (messages: readonly OutgoingMessage[]) => Promise<string[]>,
  ): Promise<string[]> {
    const attributes = this.naming.operation("send", name, destination);
    const startMs = this.now();
    const parent = this.api.context.active();
    const traced =
      this.tracer === undefined ? undefined : this.#sendSpan(destination, messages, attributes, parent);
    try {
      const ids = await (traced === undefined
        ? send(messages)
        : this.api.context.with(
            this.api.trace.setSpan(parent, traced.span),
            send,
            undefined,
            traced.messages,
          ));
      if (traced !== undefined && ids.length === 1) traced.span.setAttribute(ATTRIBUTES.messageId, ids[0]!);
      this.instruments?.sentMessages.add(messages.length, attributes);
      this.#measure(attributes, startMs);
      return ids;
    } catch (error) {
      if (traced !== undefined) this.markFailed(traced.span, error);
      this.instruments?.sentMessages.add(messages.length, withErrorType(attributes, error));
      this.#measure(attributes, startMs, error);
      throw error;
    } finally {
      traced?.span.end();
    }
  }

  /** The `send` span of a call, and its messages each carrying its context (a batch's, each its `create` span's). */
  #sendSpan(
    destination: string,
    messages: readonly OutgoingMessage[],
    attributes: Attributes,
    parent: Context,
  ): { span: Span; messages: readonly OutgoingMessage[] } {
    const tracer = this.tracer!;
    const kind = this.api.SpanKind.PRODUCER;
    if (messages.length === 1) {
      const span = tracer.startSpan(`send ${destination}`, { kind, attributes }, parent);
      return { span, messages: [this.#inject(span, parent, messages[0]!)] };
    }
    const createAttributes = this.naming.operation("create", "create", destination);
    const links: Link[] = [];
    const created = messages.map((message) => {
      const create = tracer.startSpan(
        `create ${destination}`,
        { kind, attributes: createAttributes },
        parent,
      );
      const traced = this.#inject(create, parent, message);
      links.push({ context: create.spanContext() });
      create.end();
      return traced;
    });
    const span = tracer.startSpan(`send ${destination}`, { kind, attributes, links }, parent);
    span.setAttribute(ATTRIBUTES.batchCount, messages.length);
    return { span, messages: created };
  }

  /** `message` described on `span`, carrying `span`'s context in its attributes (or not, `span` saying why). */
  #inject(span: Span, parent: Context, message: OutgoingMessage): OutgoingMessage {
    describeOutgoing(span, message);
    const context = this.api.trace.setSpan(parent, span);
    const injected = injectInto(this.api, context, message.attributes, this.naming.maxAttributes);
    if (injected.leftOut !== undefined)
      span.addEvent(CONTEXT_LEFT_OUT.event, { [CONTEXT_LEFT_OUT.reason]: injected.leftOut });
    return injected.attributes === message.attributes
      ? message
      : { ...message, attributes: injected.attributes };
  }

  /** Receives through `receive`; a call that brought messages is a `receive` span linked to each message's producer. */
  async receive(destination: string, receive: () => Promise<ReceivedMessage[]>): Promise<ReceivedMessage[]> {
    const attributes = this.naming.operation("receive", "receive", destination);
    const startMs = this.now();
    let received: ReceivedMessage[];
    try {
      received = await receive();
    } catch (error) {
      this.#receiveSpan(destination, attributes, startMs, [], error);
      this.#measure(attributes, startMs, error);
      throw error;
    }
    if (received.length === 0) return received;
    this.#receiveSpan(destination, attributes, startMs, received);
    this.instruments?.consumedMessages.add(received.length, attributes);
    this.#measure(attributes, startMs);
    return received;
  }

  /** Records a finished receive as a span started at `startMs`. */
  #receiveSpan(
    destination: string,
    attributes: Attributes,
    startMs: number,
    received: readonly ReceivedMessage[],
    error?: unknown,
  ): void {
    if (this.tracer === undefined) return;
    const span = this.tracer.startSpan(
      `receive ${destination}`,
      { kind: this.api.SpanKind.CLIENT, attributes, links: this.linksTo(received), startTime: startMs },
      this.api.context.active(),
    );
    if (received.length === 1) describeReceived(span, received[0]!, this.naming.deliveryCountName);
    else if (received.length > 1) span.setAttribute(ATTRIBUTES.batchCount, received.length);
    if (error !== undefined) this.markFailed(span, error);
    span.end(this.now());
  }

  /** Links to the producer contexts `messages` carry (those that carry one). */
  linksTo(messages: readonly ReceivedMessage[]): Link[] {
    const links: Link[] = [];
    for (const message of messages) {
      const producer = this.producerOf(message);
      if (producer !== undefined) links.push({ context: producer });
    }
    return links;
  }

  /** The span context of the producer of `message`, if it carries a valid one. */
  producerOf(message: ReceivedMessage): ReturnType<Span["spanContext"]> | undefined {
    const context = extractFrom(this.api, this.api.ROOT_CONTEXT, message.attributes);
    const producer = this.api.trace.getSpanContext(context);
    return producer !== undefined && this.api.isSpanContextValid(producer) ? producer : undefined;
  }

  /** Runs a settlement (`name`: complete, abandon, dead_letter or renew) of a message of `destination` under a `settle` span. */
  async settle<T>(name: SettleName, destination: string, settle: () => Promise<T>): Promise<T> {
    const attributes = this.naming.operation("settle", name, destination);
    const startMs = this.now();
    const span = this.tracer?.startSpan(
      `settle ${destination}`,
      { kind: this.api.SpanKind.CLIENT, attributes },
      this.api.context.active(),
    );
    try {
      const result = await settle();
      this.#measure(attributes, startMs);
      return result;
    } catch (error) {
      if (span !== undefined) this.markFailed(span, error);
      this.#measure(attributes, startMs, error);
      throw error;
    } finally {
      span?.end();
    }
  }

  /** Starts the `process` span of a handler run on `messages` of `destination`. */
  startProcess(destination: string, messages: readonly ReceivedMessage[]): ProcessRun {
    return new ProcessRun(this, destination, messages);
  }

  /** Records an operation's duration since `startMs`, with its `error.type` when it failed. */
  #measure(attributes: Attributes, startMs: number, error?: unknown): void {
    const instruments = this.instruments;
    if (instruments === undefined) return;
    const seconds = (this.now() - startMs) / 1000;
    instruments.operationDuration.record(
      seconds,
      error === undefined ? attributes : withErrorType(attributes, error),
    );
  }

  /** Marks a span failed: its status ERROR and `error.type`, never the error's message (it may quote a body). */
  markFailed(span: Span, error: unknown): void {
    const type = errorType(error);
    span.setAttribute(ATTRIBUTES.errorType, type);
    span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: type });
  }
}

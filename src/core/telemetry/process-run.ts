import type { Attributes, Context, Span } from "@opentelemetry/api";
import type { ReceivedMessage } from "../message.js";
import { ATTRIBUTES } from "./attribute-names.js";
import { extractFrom } from "./carrier.js";
import { describeReceived } from "./message-attributes.js";
import { withErrorType } from "./naming.js";
import type { Recorder } from "./recorder.js";

/**
 * One handler run of a consumer as telemetry sees it: a `process` span, the child of its message's
 * producer (one message) or linked to each producer (a batch), current while the handler runs, and
 * its duration measured when it ends.
 */
export class ProcessRun {
  readonly #recorder: Recorder;
  readonly #attributes: Attributes;
  readonly #startMs: number;
  readonly #span: Span | undefined;
  readonly #context: Context;

  constructor(recorder: Recorder, destination: string, messages: readonly ReceivedMessage[]) {
    this.#recorder = recorder;
    this.#attributes = recorder.naming.operation("process", "process", destination);
    this.#startMs = recorder.now();
    const { api, tracer } = recorder;
    const active = api.context.active();
    if (tracer === undefined) {
      this.#span = undefined;
      this.#context = active;
      return;
    }
    const kind = api.SpanKind.CONSUMER;
    const name = `process ${destination}`;
    if (messages.length === 1) {
      const message = messages[0]!;
      const parent = extractFrom(api, active, message.attributes);
      this.#span = tracer.startSpan(name, { kind, attributes: this.#attributes }, parent);
      describeReceived(this.#span, message, recorder.naming.deliveryCountName);
      this.#context = api.trace.setSpan(parent, this.#span);
    } else {
      const links = recorder.linksTo(messages);
      this.#span = tracer.startSpan(name, { kind, attributes: this.#attributes, links }, active);
      this.#span.setAttribute(ATTRIBUTES.batchCount, messages.length);
      this.#context = api.trace.setSpan(active, this.#span);
    }
  }

  /** Runs `work` with the `process` span current, so that spans the handler starts are its children. */
  within<T>(work: () => T): T {
    return this.#recorder.api.context.with(this.#context, work);
  }

  /** Ends the span and measures the run: failed when `error` is given (the handler threw or ran out of time). */
  end(error?: unknown): void {
    const recorder = this.#recorder;
    if (this.#span !== undefined) {
      if (error !== undefined) recorder.markFailed(this.#span, error);
      this.#span.end();
    }
    recorder.instruments?.processDuration.record(
      (recorder.now() - this.#startMs) / 1000,
      error === undefined ? this.#attributes : withErrorType(this.#attributes, error),
    );
  }
}

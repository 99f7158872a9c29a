import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** A metric reader a test collects from when it wants the instruments' values. */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** One data point of an instrument, its attributes and value. */
export interface Point {
  readonly attributes: Readonly<Record<string, unknown>>;
  /** A counter's sum, or a histogram's count of recordings. */
  readonly value: number;
  /** A histogram's sum. */
  readonly sum?: number;
}

/** An SDK of the test's own: in-memory spans and metrics, W3C propagation, async context. */
export interface TestSdk {
  readonly exporter: InMemorySpanExporter;
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  /** The finished spans so far. */
  spans(): ReadableSpan[];
  /** The data points of the instrument `name`, collected now. */
  points(name: string): Promise<Point[]>;
  /** Unregisters whatever `register` registered and shuts the providers down. */
  close(): Promise<void>;
}

/** Makes an SDK; `global` registers it as the global providers, propagator and context manager. */
export function startSdk(global = true): TestSdk {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (global) {
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
  }
  return {
    exporter,
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    async points(name) {
      const { resourceMetrics } = await reader.collect();
      const found: Point[] = [];
      for (const scope of resourceMetrics.scopeMetrics)
        for (const metric of scope.metrics)
          if (metric.descriptor.name === name)
            for (const point of metric.dataPoints as DataPoint<number | Histogram>[]) {
              const value = point.value;
              found.push(
                typeof value === "number"
                  ? { attributes: point.attributes, value }
                  : { attributes: point.attributes, value: value.count, sum: value.sum },
              );
            }
      return found;
    },
    async close() {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** The spans named `name`. */
export function named(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

/** The span named `name`, failing when there is not exactly one. */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = named(spans, name);
  if (found.length !== 1)
    throw new Error(
      `expected one span ${name}, found ${found.length}: ${spans.map((s) => s.name).join(", ")}`,
    );
  return found[0]!;
}

/** The id of `span`'s parent span, if it has one. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

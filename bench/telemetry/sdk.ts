import { context, propagation } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { ExportResultCode, W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { TelemetryProviders } from "../../src/index.js";

/** Spans handed to it are dropped: what an application pays for its SDK, short of the network. */
const noSpanExporter: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: async () => undefined,
};

/** Metrics handed to it are dropped. */
const noMetricExporter: PushMetricExporter = {
  export: (_metrics, done) => done({ code: ExportResultCode.SUCCESS }),
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

/** The SDK of the benchmark's third contender, with the shutdown of its providers. */
export interface NoopSdk {
  readonly providers: TelemetryProviders;
  shutdown(): Promise<void>;
}

/**
 * An SDK as an application sets it up (batching span processor, periodic metric reader, W3C
 * propagation, async context) whose exporters drop everything. The propagator and the context
 * manager are registered globally; the providers are given to the client of that contender only,
 * so that the other contenders of the same process run with no SDK.
 */
export function startNoopSdk(): NoopSdk {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(noSpanExporter)],
  });
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: noMetricExporter, exportIntervalMillis: 1_000 })],
  });
  return {
    providers: { tracerProvider, meterProvider },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      propagation.disable();
      context.disable();
    },
  };
}

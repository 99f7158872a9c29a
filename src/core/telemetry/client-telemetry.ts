import type { Meter, Tracer, TracerProvider } from "@opentelemetry/api";
import type { ProviderTelemetry } from "../provider.js";
import { makeInstruments } from "./instruments.js";
import { Naming } from "./naming.js";
import { loadedOpenTelemetry, loadOpenTelemetry, type OpenTelemetry } from "./open-telemetry.js";
import { performanceClock, Recorder, type TelemetryClock } from "./recorder.js";
import { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from "./scope.js";
import type { TelemetryOption, TelemetryProviders } from "./telemetry-option.js";

/** The no-op tracer provider of an API module: what its global proxy delegates to while no SDK is registered. */
const noopTracerProviders = new WeakMap<OpenTelemetry, TracerProvider>();

function noopTracerProviderOf(api: OpenTelemetry): TracerProvider {
  let noop = noopTracerProviders.get(api);
  if (noop === undefined) {
    noop = new api.ProxyTracerProvider().getDelegate();
    noopTracerProviders.set(api, noop);
  }
  return noop;
}

/**
 * Where one client's spans and measurements go. Asked before every operation: without the API,
 * with telemetry off, or with no SDK registered, it answers `undefined` and the operation runs
 * as it would without telemetry; an SDK registered later is picked up at the next operation.
 */
export class ClientTelemetry {
  readonly #enabled: boolean;
  readonly #given: TelemetryProviders;
  readonly #naming: Naming;
  readonly #now: TelemetryClock;
  #api: OpenTelemetry | undefined;
  #tracerProvider: unknown;
  #meterProvider: unknown;
  #recorder: Recorder | undefined;

  /** Telemetry as `option` says, naming a provider of type `providerType` as it names itself. */
  constructor(
    option: TelemetryOption,
    providerType: string,
    provider: ProviderTelemetry | undefined,
    now: TelemetryClock = performanceClock,
  ) {
    this.#enabled = option !== false;
    this.#given = typeof option === "object" ? option : {};
    this.#naming = new Naming(providerType, provider);
    this.#now = now;
    // Loaded in the background: a client made directly starts recording once the import is done
    // (`createClient` waits for it, so that its first operation is recorded already).
    if (this.#enabled) void loadOpenTelemetry();
  }

  /** What records the next operation, or `undefined` when nothing would be recorded. */
  active(): Recorder | undefined {
    if (!this.#enabled) return undefined;
    const api = loadedOpenTelemetry();
    if (api === undefined) return undefined;
    let tracerProvider = this.#given.tracerProvider ?? api.trace.getTracerProvider();
    // The global provider is a proxy for as long as the API lives: what counts is its delegate.
    if (tracerProvider instanceof api.ProxyTracerProvider) tracerProvider = tracerProvider.getDelegate();
    const meterProvider = this.#given.meterProvider ?? api.metrics.getMeterProvider();
    if (tracerProvider !== this.#tracerProvider || meterProvider !== this.#meterProvider || api !== this.#api)
      this.#recorder = this.#recorderFor(api, tracerProvider, meterProvider);
    return this.#recorder;
  }

  #recorderFor(api: OpenTelemetry, tracerProvider: unknown, meterProvider: unknown): Recorder | undefined {
    this.#api = api;
    this.#tracerProvider = tracerProvider;
    this.#meterProvider = meterProvider;
    const tracer =
      tracerProvider === noopTracerProviderOf(api)
        ? undefined
        : ((tracerProvider as TracerProvider).getTracer(
            INSTRUMENTATION_NAME,
            INSTRUMENTATION_VERSION,
          ) as Tracer);
    const meter = (meterProvider as { getMeter(name: string, version: string): Meter }).getMeter(
      INSTRUMENTATION_NAME,
      INSTRUMENTATION_VERSION,
    );
    const instruments = meter === api.createNoopMeter() ? undefined : makeInstruments(meter);
    if (tracer === undefined && instruments === undefined) return undefined;
    return new Recorder(api, tracer, instruments, this.#naming, this.#now);
  }
}

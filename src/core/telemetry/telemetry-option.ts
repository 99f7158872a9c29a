import { QueueError } from "../errors.js";

/** A tracer provider, as `@opentelemetry/api`'s `TracerProvider` (named by shape: the API is an optional peer). */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/** A meter provider, as `@opentelemetry/api`'s `MeterProvider`. */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): unknown;
}

/** Providers to record to instead of the global ones; a signal not given goes to its global provider. */
export interface TelemetryProviders {
  tracerProvider?: TracerProviderLike;
  meterProvider?: MeterProviderLike;
}

/**
 * `QueueConfig.telemetry`: absent (or `true`), spans and metrics go to the globally registered
 * OpenTelemetry providers, if any; `false` records nothing; an object names providers of its own.
 */
export type TelemetryOption = boolean | TelemetryProviders;

const KEYS: ReadonlySet<string> = new Set(["tracerProvider", "meterProvider"]);

/** Checks a telemetry option; anything but the shapes above is a `Configuration` error saying what is wrong. */
export function checkTelemetryOption(option: unknown): TelemetryOption {
  if (option === undefined) return true;
  if (typeof option === "boolean") return option;
  if (option === null || typeof option !== "object" || Array.isArray(option))
    throw new QueueError(
      "Configuration",
      `telemetry must be false, true or { tracerProvider?, meterProvider? }, not ${describe(option)}`,
    );
  for (const key of Object.keys(option))
    if (!KEYS.has(key))
      throw new QueueError(
        "Configuration",
        `telemetry takes tracerProvider and meterProvider, not ${JSON.stringify(key)}`,
      );
  const { tracerProvider, meterProvider } = option as Record<string, unknown>;
  checkProvider("tracerProvider", tracerProvider, "getTracer");
  checkProvider("meterProvider", meterProvider, "getMeter");
  return option as TelemetryProviders;
}

function checkProvider(name: string, value: unknown, method: string): void {
  if (value === undefined) return;
  if (
    value === null ||
    typeof value !== "object" ||
    typeof (value as Record<string, unknown>)[method] !== "function"
  )
    throw new QueueError(
      "Configuration",
      `telemetry.${name} must be an OpenTelemetry ${name} (an object with ${method}()), not ${describe(value)}`,
    );
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object of another shape" : `${typeof value} ${String(value)}`;
}

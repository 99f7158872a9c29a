import type * as OpenTelemetryApi from "@opentelemetry/api";

/** The `@opentelemetry/api` module, when it is installed. */
export type OpenTelemetry = typeof OpenTelemetryApi;

/** Imports the API module; a test may give another importer. */
export type ApiImporter = () => Promise<OpenTelemetry>;

let loaded: OpenTelemetry | undefined;
let loading: Promise<OpenTelemetry | undefined> | undefined;

/**
 * Loads `@opentelemetry/api` once (an optional peer dependency: a failed import leaves telemetry
 * off for good, without an error). Resolves the module, or `undefined` when it cannot be loaded.
 */
export function loadOpenTelemetry(
  importer: ApiImporter = () => import("@opentelemetry/api"),
): Promise<OpenTelemetry | undefined> {
  loading ??= importer().then(
    (api) => {
      loaded = api;
      return api;
    },
    () => undefined,
  );
  return loading;
}

/** The API if it has been loaded already: one read, so the path without it costs nothing more. */
export function loadedOpenTelemetry(): OpenTelemetry | undefined {
  return loaded;
}

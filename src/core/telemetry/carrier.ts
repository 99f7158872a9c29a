import type { Context, TextMapGetter } from "@opentelemetry/api";
import type { OpenTelemetry } from "./open-telemetry.js";

/** The W3C header the context travels in, and the foreign ones read when it is absent. */
export const TRACEPARENT = "traceparent";
/** Set by the Azure SDKs (a W3C traceparent in current ones), as an application property. */
export const DIAGNOSTIC_ID = "Diagnostic-Id";
/** Set by the AWS SDK and X-Ray as an SQS system attribute; the sqs provider shows it as an attribute. */
export const AWS_TRACE_HEADER = "AWSTraceHeader";

type Carrier = Readonly<Record<string, string>>;

/** What injecting did to a message's attributes. */
export type Injected =
  | { readonly attributes: Carrier | undefined; readonly leftOut?: undefined }
  /** The context was not added, and why (the span records it). */
  | { readonly attributes: Carrier | undefined; readonly leftOut: string };

/**
 * `attributes` with the context of `context` added through the global propagator. A message that
 * carries a `traceparent` already keeps its own; a propagator that writes nothing (none is
 * registered) changes nothing; past `maxAttributes` the context is left out, and the answer says why.
 */
export function injectInto(
  api: OpenTelemetry,
  context: Context,
  attributes: Carrier | undefined,
  maxAttributes: number | undefined,
): Injected {
  if (attributes?.[TRACEPARENT] !== undefined) return { attributes };
  const headers: Record<string, string> = {};
  api.propagation.inject(context, headers);
  let added = 0;
  for (const _ in headers) added++;
  if (added === 0) return { attributes };
  if (maxAttributes !== undefined) {
    let count = 0;
    for (const _ in attributes) count++;
    if (count + added > maxAttributes)
      return {
        attributes,
        leftOut: `the message has ${count} attributes; the trace context's ${added} more would pass the provider's ${maxAttributes}`,
      };
  }
  return { attributes: attributes === undefined ? headers : { ...attributes, ...headers } };
}

/** Reads a message's attributes for the propagator, giving a `traceparent` made from a foreign header where it has none. */
const getter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const value = carrier[key];
    if (value !== undefined || key !== TRACEPARENT) return value;
    return carrier[DIAGNOSTIC_ID] ?? traceparentOfAwsHeader(carrier[AWS_TRACE_HEADER]);
  },
};

/** The producer's context carried by a message's attributes, on top of `parent`. */
export function extractFrom(api: OpenTelemetry, parent: Context, attributes: Carrier): Context {
  return api.propagation.extract(parent, attributes, getter);
}

const AWS_HEADER =
  /(?:^|;)\s*Root=1-([0-9a-f]{8})-([0-9a-f]{24})\s*;\s*Parent=([0-9a-f]{16})(?:\s*;\s*Sampled=([01]))?/i;

/**
 * An X-Ray trace header (`Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1`)
 * as a W3C traceparent: the same trace id and parent span id, sampled as it says.
 */
export function traceparentOfAwsHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = AWS_HEADER.exec(header);
  if (match === null) return undefined;
  const [, epoch, unique, parent, sampled] = match;
  return `00-${epoch}${unique}-${parent}-${sampled === "1" ? "01" : "00"}`.toLowerCase();
}

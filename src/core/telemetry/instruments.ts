import type { Attributes, Counter, Histogram, Meter } from "@opentelemetry/api";

/** The instruments' names, as the spec binds them. */
export const INSTRUMENT_NAMES = {
  operationDuration: "messaging.client.operation.duration",
  sentMessages: "messaging.client.sent.messages",
  consumedMessages: "messaging.client.consumed.messages",
  processDuration: "messaging.process.duration",
} as const;

/** The semantic conventions' bucket boundaries for messaging durations, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The four messaging instruments of one meter. */
export interface Instruments {
  readonly operationDuration: Histogram<Attributes>;
  readonly sentMessages: Counter<Attributes>;
  readonly consumedMessages: Counter<Attributes>;
  readonly processDuration: Histogram<Attributes>;
}

/** Makes the messaging instruments on `meter`. */
export function makeInstruments(meter: Meter): Instruments {
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
  return {
    operationDuration: meter.createHistogram(INSTRUMENT_NAMES.operationDuration, {
      description: "Duration of a messaging operation initiated by a producer or consumer client.",
      unit: "s",
      advice,
    }),
    sentMessages: meter.createCounter(INSTRUMENT_NAMES.sentMessages, {
      description: "Number of messages producer attempted to send to the broker.",
      unit: "{message}",
    }),
    consumedMessages: meter.createCounter(INSTRUMENT_NAMES.consumedMessages, {
      description: "Number of messages that were delivered to the application.",
      unit: "{message}",
    }),
    processDuration: meter.createHistogram(INSTRUMENT_NAMES.processDuration, {
      description: "Duration of processing operation.",
      unit: "s",
      advice,
    }),
  };
}

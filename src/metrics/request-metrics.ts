import type { HistogramSample, MetricFamily, Sample } from "./prometheus-text.js";

/**
 * Upper bounds of the request latency histogram, in seconds: sub-millisecond answers of an
 * in-memory store up to SQS's 20 s long poll, which a `ReceiveMessage` that waits includes.
 */
export const DURATION_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20,
];

/** Which of a server's protocols answered a request: its `api` label. */
export type RequestApi = "sqs" | "servicebus_amqp" | "servicebus_admin";

/** The outcome of a request that succeeded; a failure's outcome is its error code. */
export const OK = "ok";

/** Counts and latencies of one api and operation. */
interface OperationRecord {
  readonly api: RequestApi;
  readonly operation: string;
  readonly outcomes: Map<string, number>;
  /** Per bucket, the observations at most its bound and above the one before (made cumulative when read). */
  readonly buckets: number[];
  sum: number;
  count: number;
}

/**
 * The requests a server answered, by api, operation and outcome, with a latency histogram per
 * operation. Labels come from the protocols' own bounded names (operations, error codes), never
 * from a request's content, so the series stay few. Recording is a map lookup and a bucket scan.
 */
export class RequestMetrics {
  /** By api, then operation: two lookups and no string built per request. */
  readonly #operations = new Map<RequestApi, Map<string, OperationRecord>>();

  /** Records one answered request: `outcome` is {@link OK} or the error code answered. */
  record(api: RequestApi, operation: string, outcome: string, seconds: number): void {
    let byOperation = this.#operations.get(api);
    if (byOperation === undefined) {
      byOperation = new Map();
      this.#operations.set(api, byOperation);
    }
    let record = byOperation.get(operation);
    if (record === undefined) {
      record = {
        api,
        operation,
        outcomes: new Map(),
        buckets: DURATION_BUCKETS.map(() => 0),
        sum: 0,
        count: 0,
      };
      byOperation.set(operation, record);
    }
    record.outcomes.set(outcome, (record.outcomes.get(outcome) ?? 0) + 1);
    const bucket = DURATION_BUCKETS.findIndex((bound) => seconds <= bound);
    if (bucket >= 0) record.buckets[bucket]! += 1;
    record.sum += seconds;
    record.count += 1;
  }

  /** Starts timing a request: the function returned records it once called with its outcome. */
  start(api: RequestApi, operation: string): (outcome: string) => void {
    const started = performance.now();
    return (outcome) => this.record(api, operation, outcome, (performance.now() - started) / 1000);
  }

  /** The counter and the histogram as exposition families, sorted by api and operation. */
  families(): MetricFamily[] {
    const records = [...this.#operations.values()]
      .flatMap((byOperation) => [...byOperation.values()])
      .sort((a, b) => a.api.localeCompare(b.api) || a.operation.localeCompare(b.operation));
    const counts: Sample[] = records.flatMap((record) =>
      [...record.outcomes]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([outcome, value]) => ({
          labels: { api: record.api, operation: record.operation, outcome },
          value,
        })),
    );
    const durations: HistogramSample[] = records.map((record) => {
      let below = 0;
      return {
        labels: { api: record.api, operation: record.operation },
        buckets: DURATION_BUCKETS.map((le, index) => {
          below += record.buckets[index]!;
          return { le, count: below };
        }),
        sum: record.sum,
        count: record.count,
      };
    });
    return [
      {
        type: "counter",
        name: "queue_runtime_requests_total",
        help: "Requests answered, by api, operation and outcome (ok, or the error code answered).",
        samples: counts,
      },
      {
        type: "histogram",
        name: "queue_runtime_request_duration_seconds",
        help: "Time from a request's arrival to its answer, by api and operation (a long poll's wait included).",
        samples: durations,
      },
    ];
  }
}

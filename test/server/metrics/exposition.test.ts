// The shared pieces of /metrics: the text format, the request counts and the bounded count read.
import { describe, expect, it } from "vitest";
import { QueueError } from "../../../src/core/errors.js";
import { renderFamilies } from "../../../src/metrics/prometheus-text.js";
import { MAX_REPORTED_QUEUES, queueFamilies, readQueueCounts } from "../../../src/metrics/queue-gauges.js";
import { DURATION_BUCKETS, RequestMetrics } from "../../../src/metrics/request-metrics.js";
import { parseExposition, samplesOf, sampleValue } from "./prometheus-parse.js";

const STATS = { active: 1, inFlight: 2, delayed: 3, deadLettered: 4 };

describe("the exposition text", () => {
  it("escapes backslashes, double quotes and line feeds in label values, and HELP text, so they read back as written", () => {
    const odd = 'a "quoted" \\ back\nslash, ünïcode';
    const text = renderFamilies([
      {
        type: "gauge",
        name: "x_value",
        help: "one\\two\nthree",
        samples: [{ labels: { odd, plain: "p" }, value: 1.5 }],
      },
      { type: "counter", name: "x_total", help: "none", samples: [] },
    ]);
    expect(text).toContain('odd="a \\"quoted\\" \\\\ back\\nslash, ünïcode"');
    const parsed = parseExposition(text);
    expect(sampleValue(parsed, "x_value", { odd, plain: "p" })).toBe(1.5);
    expect(parsed.families.get("x_value")).toEqual({ help: "one\\two\nthree", type: "gauge" });
    expect(parsed.families.get("x_total")).toEqual({ help: "none", type: "counter" });
  });

  it("labels a subscription's counts with its topic and subscription, a queue's with its name alone", () => {
    const parsed = parseExposition(
      renderFamilies(
        queueFamilies({
          total: 2,
          counted: [
            { queue: "orders", stats: STATS },
            { queue: "events/subscriptions/audit", stats: STATS },
          ],
        }),
      ),
    );
    expect(sampleValue(parsed, "queue_runtime_queue_messages", { queue: "orders", state: "in_flight" })).toBe(
      2,
    );
    expect(
      sampleValue(parsed, "queue_runtime_queue_messages", {
        queue: "events/subscriptions/audit",
        topic: "events",
        subscription: "audit",
        state: "dead_lettered",
      }),
    ).toBe(4);
    expect(sampleValue(parsed, "queue_runtime_queues")).toBe(2);
  });
});

describe("request counts", () => {
  it("count by api, operation and outcome, with a cumulative latency histogram per operation", () => {
    const requests = new RequestMetrics();
    requests.record("sqs", "SendMessage", "ok", 0.0001);
    requests.record("sqs", "SendMessage", "ok", 0.003);
    requests.record("sqs", "SendMessage", "QueueDoesNotExist", 30);
    requests.record("servicebus_amqp", "complete", "ok", 0.2);
    const parsed = parseExposition(renderFamilies(requests.families()));
    expect(
      sampleValue(parsed, "queue_runtime_requests_total", {
        api: "sqs",
        operation: "SendMessage",
        outcome: "ok",
      }),
    ).toBe(2);
    expect(
      sampleValue(parsed, "queue_runtime_requests_total", {
        api: "sqs",
        operation: "SendMessage",
        outcome: "QueueDoesNotExist",
      }),
    ).toBe(1);
    const send = { api: "sqs", operation: "SendMessage" };
    const buckets = samplesOf(parsed, "queue_runtime_request_duration_seconds_bucket", send);
    expect(buckets.map((bucket) => bucket.labels.le)).toEqual([...DURATION_BUCKETS.map(String), "+Inf"]);
    expect(
      sampleValue(parsed, "queue_runtime_request_duration_seconds_bucket", { ...send, le: "0.0005" }),
    ).toBe(1);
    expect(
      sampleValue(parsed, "queue_runtime_request_duration_seconds_bucket", { ...send, le: "0.005" }),
    ).toBe(2);
    expect(sampleValue(parsed, "queue_runtime_request_duration_seconds_bucket", { ...send, le: "20" })).toBe(
      2,
    );
    expect(
      sampleValue(parsed, "queue_runtime_request_duration_seconds_bucket", { ...send, le: "+Inf" }),
    ).toBe(3);
    expect(sampleValue(parsed, "queue_runtime_request_duration_seconds_count", send)).toBe(3);
    expect(sampleValue(parsed, "queue_runtime_request_duration_seconds_sum", send)).toBeCloseTo(30.0031, 6);
    expect(parsed.families.get("queue_runtime_request_duration_seconds")?.type).toBe("histogram");
  });
});

describe("reading the queues' counts", () => {
  it("reads the first queues by name only, counts them all, and leaves out a queue deleted meanwhile", async () => {
    const names = Array.from(
      { length: MAX_REPORTED_QUEUES + 5 },
      (_, index) => `q${String(index).padStart(5, "0")}`,
    );
    const read: string[] = [];
    const counts = await readQueueCounts(names.toReversed(), (name) => {
      read.push(name);
      if (name === "q00003") throw new QueueError("QueueNotFound", "deleted meanwhile");
      return STATS;
    });
    expect(read).toHaveLength(MAX_REPORTED_QUEUES);
    expect(counts.total).toBe(MAX_REPORTED_QUEUES + 5);
    expect(counts.counted.map((count) => count.queue)).toEqual(
      names.slice(0, MAX_REPORTED_QUEUES).filter((name) => name !== "q00003"),
    );
  });
});

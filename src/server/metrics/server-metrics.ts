import type { QueueEngine } from "../../engine/queue-engine.js";
import { isLoopbackHost } from "../../http/loopback-hosts.js";
import { MetricsEndpoint } from "../../metrics/metrics-endpoint.js";
import type { MetricFamily } from "../../metrics/prometheus-text.js";
import { type QueueCounts, queueFamilies, readQueueCounts } from "../../metrics/queue-gauges.js";
import { RequestMetrics } from "../../metrics/request-metrics.js";
import { belongsToTopic, SUBSCRIPTION_DEAD_LETTERS } from "../../rules/topic-records.js";

/**
 * The metrics of the servers over one engine: its queues' counts, read when scraped, and the
 * requests every server given {@link ServerMetrics.requests} answered. `serve` shares one between
 * its SQS, AMQP and administration servers, so each `/metrics` tells the whole process.
 */
export class ServerMetrics {
  /** Where the servers record the requests they answer. */
  readonly requests = new RequestMetrics();
  readonly #engine: QueueEngine;

  /** Metrics over `engine`'s queues. */
  constructor(engine: QueueEngine) {
    this.#engine = engine;
  }

  /** The `/metrics` endpoint of a server listening on `host`: loopback names only when that is a loopback address. */
  endpoint(host: string): MetricsEndpoint {
    return new MetricsEndpoint({ collect: () => this.collect(), loopbackOnly: isLoopbackHost(host) });
  }

  /** The families of one scrape: one count read per queue (no message is read), then the requests. */
  async collect(): Promise<MetricFamily[]> {
    return [...queueFamilies(await this.#queueCounts()), ...this.requests.families()];
  }

  /**
   * Every queue and subscription, by its engine name; a subscription's dead-letter queue is left
   * out, its messages being the subscription's `dead_lettered` count (as a client lists them).
   */
  #queueCounts(): Promise<QueueCounts> {
    const names = this.#engine
      .listQueues()
      .map((queue) => queue.name)
      .filter((name) => !(name.endsWith(SUBSCRIPTION_DEAD_LETTERS) && belongsToTopic(name)));
    return readQueueCounts(names, (name) => this.#engine.stats(name));
  }
}

import type { EngineProviderOptions } from "../../rules/queue-defaults.js";

/** RabbitMQ 3.10+ over AMQP 0.9.1 (amqplib), with no plugin: quorum queues, a stream as the queue catalog. */
export interface RabbitMqProviderConfig extends EngineProviderOptions {
  type: "rabbitmq";
  /** `amqp://user:password@host:5672/vhost` (or `amqps://`); the password never appears in errors. */
  url: string;
  /** Put before the name of every broker object this client makes, so apps sharing a broker never see each other's queues. */
  queuePrefix?: string;
  /** How many unsettled deliveries each queue's consumer may hold (basic.qos, default 10). */
  prefetch?: number;
  /** The kind of queue made (default `quorum`, the only kind that counts deliveries). */
  queueType?: "quorum" | "classic";
}

declare module "../../core/config.js" {
  interface ProviderConfigs {
    rabbitmq: RabbitMqProviderConfig;
  }
}

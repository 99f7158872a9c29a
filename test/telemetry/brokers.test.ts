import { afterAll, describe } from "vitest";
import { createClient } from "../../src/index.js";
import { usePrefixes } from "../providers/nats/broker.js";
import { cleanPrefix, RABBITMQ_URL, uniquePrefix } from "../providers/rabbitmq/broker.js";
import { telemetryCases } from "./cases.js";

const rabbitPrefix = uniquePrefix("telemetry");
afterAll(() => cleanPrefix(rabbitPrefix), 60_000);

describe("telemetry on rabbitmq", () => {
  telemetryCases({
    client: () =>
      createClient({ provider: { type: "rabbitmq", url: RABBITMQ_URL, queuePrefix: rabbitPrefix } }),
    system: "rabbitmq",
    network: true,
  });
});

const nats = usePrefixes();
const natsPrefix = nats.prefix("telemetry");

describe("telemetry on nats", () => {
  telemetryCases({ client: () => nats.client(natsPrefix), system: "nats", network: true });
});

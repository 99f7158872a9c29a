import { registerProvider } from "../../core/provider-registry.js";
import { fromRabbitMqUrl } from "./url.js";

export type { RabbitMqProviderConfig } from "./config.js";

registerProvider({
  type: "rabbitmq",
  schemes: ["amqp", "amqps"],
  createsQueues: true,
  fromUrl: fromRabbitMqUrl,
  load: async () => (await import("./rabbitmq-provider.js")).createRabbitMqProvider,
});

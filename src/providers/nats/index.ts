import { registerProvider } from "../../core/provider-registry.js";
import { fromNatsUrl } from "./url.js";

export type { NatsProviderConfig } from "./config.js";

registerProvider({
  type: "nats",
  schemes: ["nats", "tls"],
  createsQueues: true,
  fromUrl: fromNatsUrl,
  load: async () => (await import("./nats-provider.js")).createNatsProvider,
});

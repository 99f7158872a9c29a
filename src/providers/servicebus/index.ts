import { registerProvider } from "../../core/provider-registry.js";
import { fromServiceBusUrl } from "./url.js";

export type { ServiceBusProviderConfig } from "./config.js";

registerProvider({
  type: "servicebus",
  schemes: ["servicebus"],
  createsQueues: false,
  fromUrl: fromServiceBusUrl,
  load: async () => (await import("./servicebus-provider.js")).createServiceBusProvider,
});

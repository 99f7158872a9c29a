import { registerProvider } from "../../core/provider-registry.js";
import { fromSqsUrl } from "./url.js";

export type { SqsProviderConfig } from "./config.js";

registerProvider({
  type: "sqs",
  schemes: ["sqs", "sqss"],
  createsQueues: false,
  fromUrl: fromSqsUrl,
  load: async () => (await import("./sqs-provider.js")).createSqsProvider,
});

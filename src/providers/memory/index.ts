import { registerProvider } from "../../core/provider-registry.js";
import { fromMemoryUrl } from "./url.js";

export type { MemoryProviderConfig } from "./config.js";

registerProvider({
  type: "memory",
  schemes: ["memory"],
  createsQueues: true,
  fromUrl: fromMemoryUrl,
  load: async () => (await import("./memory-provider.js")).createMemoryProvider,
});

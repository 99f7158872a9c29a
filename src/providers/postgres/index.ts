import { registerProvider } from "../../core/provider-registry.js";
import { fromPostgresUrl } from "./url.js";

export type { PostgresProviderConfig } from "./config.js";

registerProvider({
  type: "postgres",
  schemes: ["postgres", "postgresql"],
  createsQueues: true,
  fromUrl: fromPostgresUrl,
  load: async () => (await import("./postgres-provider.js")).createPostgresProvider,
});

import { registerProvider } from "../../core/provider-registry.js";
import { fromSqliteUrl } from "./url.js";

export type { SqliteProviderConfig } from "./config.js";

registerProvider({
  type: "sqlite",
  schemes: ["sqlite"],
  createsQueues: true,
  fromUrl: fromSqliteUrl,
  load: async () => (await import("./sqlite-provider.js")).createSqliteProvider,
});

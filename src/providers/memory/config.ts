import type { EngineProviderOptions } from "../../rules/queue-defaults.js";

/** The in-process provider: queues live in this process's memory. */
export interface MemoryProviderConfig extends EngineProviderOptions {
  type: "memory";
  /** Clients created with the same name in one process share their queues; without one each client has its own. */
  name?: string;
}

declare module "../../core/config.js" {
  interface ProviderConfigs {
    memory: MemoryProviderConfig;
  }
}

import { QueueClientFactory } from "../../src/core/factory.js";
import { JournalStore } from "../../src/engine/journal/journal-store.js";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import { EngineProvider } from "../../src/providers/engine/engine-provider.js";
import { acquireEngine } from "../../src/providers/engine/shared-engines.js";
import { fullCapabilitiesWithTopics } from "../../src/rules/full-capabilities.js";
import { MAX_BATCH_SIZE, maxMessageBytesOf } from "../../src/rules/limits.js";
import type { EngineProviderOptions } from "../../src/rules/queue-defaults.js";

/** The provider config of the test-only `journal` provider: the engine on a journal store at `path`. */
export interface JournalProviderConfig extends EngineProviderOptions {
  type: "journal";
  path: string;
  compactAfterBytes?: number;
}

/** The store each open journal path is served by, so tests can look at what it holds. */
export const openStores = new Map<string, JournalStore>();

/** Registers `journal` with the client factory: clients of one path share one engine, as with SQLite. */
export function registerJournalProvider(): void {
  QueueClientFactory.registerProvider(
    "journal",
    async (config, options) => {
      const journal = config as unknown as JournalProviderConfig;
      const { engine, release } = acquireEngine(`journal:${journal.path}`, () => {
        const store = new JournalStore(journal.path, { compactAfterBytes: journal.compactAfterBytes });
        openStores.set(journal.path, store);
        return new QueueEngine(store, { ...journal, createQueues: options.createQueues });
      });
      return new EngineProvider(
        engine,
        "sqlite",
        fullCapabilitiesWithTopics(maxMessageBytesOf(journal), MAX_BATCH_SIZE),
        () => {
          openStores.delete(journal.path);
          return release();
        },
        { groupCommit: true },
      );
    },
    { createQueues: true },
  );
}

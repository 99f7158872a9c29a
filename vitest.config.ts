import { configDefaults, defineConfig } from "vitest/config";

const TESTS = ["src/**/*.test.ts", "test/**/*.test.ts"];
/**
 * Tests that kill processes, restart servers or load one store for a stretch: they run after the
 * others, one file at a time, so that no other test's work slows what they time or kill.
 */
const ALONE = [
  "test/**/processes.test.ts",
  "test/**/durability.test.ts",
  "test/**/multi-process.test.ts",
  "test/providers/postgres/growth.test.ts",
  // moto (Python) answers slowly when another file shares the CPU: locks of 3 s then end mid-case.
  "test/providers/sqs/moto.contract.test.ts",
];

export default defineConfig({
  test: {
    exclude: configDefaults.exclude,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A poll waits for something another process or the event loop does: on a loaded machine
    // that can take longer than vitest's 1 s default.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      {
        extends: true,
        // Most tests wait on sockets, servers and child processes more than they compute: two
        // files at a time keep both cores of a 2-core machine busy.
        test: {
          name: "together",
          include: TESTS,
          exclude: [...configDefaults.exclude, ...ALONE],
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: { name: "alone", include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});

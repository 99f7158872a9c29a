import { type TestContext, test } from "vitest";
import type { Harness } from "./harness.js";

/** What a group of contract cases needs from the suite around it. */
export interface Suite {
  /** The harness of the running test. */
  harness(): Harness;
  /** Ends the running test as skipped unless `condition` holds, noting the id and the capability it lacks. */
  requires(context: TestContext, id: string, condition: boolean, capability: string): void;
  /** Ends the running test as skipped when the provider has `capability`: the case checks how its absence is refused. */
  lacks(context: TestContext, id: string, has: boolean, capability: string): void;
}

/** Declares one contract case; `title` starts with its id; `timeoutMs` replaces the suite's timeout. */
export function contractCase(
  suite: Suite,
  title: string,
  body: (h: Harness, context: TestContext) => Promise<void>,
  timeoutMs?: number,
): void {
  test(title, (context) => body(suite.harness(), context), timeoutMs);
}

import type { VirtualClock } from "../../src/index.js";

/** Advances `clock` in steps of `stepMs`, letting the work each step starts run, until `condition` holds. */
export async function advanceUntil(
  clock: VirtualClock,
  condition: () => boolean,
  stepMs: number,
  maxSteps = 200,
): Promise<void> {
  for (let step = 0; !condition(); step++) {
    if (step >= maxSteps) throw new Error(`not reached within ${maxSteps} steps of ${stepMs} ms`);
    await clock.advance(stepMs);
  }
}

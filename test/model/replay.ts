import type { WorldCommand } from "../../src/testing/model/commands.js";
import { type MakeModelClient, replayAgainstModel } from "../../src/testing/model/index.js";
import type { ModelOptions, ModelQueueOptions } from "../../src/testing/model/queue-model.js";
import type { ModelSubscriptionOptions } from "../../src/testing/model/topic-model.js";

/**
 * Replays a shrunk sequence (`qa` made with `first`, `qf.fifo` with `fifo`, and in a topic run
 * topic `ta` with subscription `a` made with `subscription`) with the state compared after each step.
 */
export type Replay = (
  first: ModelQueueOptions,
  steps: readonly WorldCommand[],
  fifo?: ModelQueueOptions,
  subscription?: ModelSubscriptionOptions,
) => Promise<void>;

/** Replays of shrunk counterexamples on one provider, compared as the runs compare them. */
export function replayer(makeClient: MakeModelClient, model?: ModelOptions): Replay {
  return (first, steps, fifo = {}, subscription = undefined) =>
    replayAgainstModel(makeClient, first, steps, {
      compareState: true,
      fifo,
      ...(model ? { model } : {}),
      ...(subscription ? { subscription } : {}),
    });
}

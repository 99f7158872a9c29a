export { VirtualClock } from "../core/clock.js";
export { describeQueueContract } from "./contract/describe-queue-contract.js";
export type { ContractContext, ContractOptions, MakeClient } from "./contract/harness.js";
export { FailingProvider, type ProviderOperation } from "./failing-provider.js";
export type { ModelGiven } from "./model/arbitraries.js";
// The commands a run is made of, for replaying a shrunk counterexample as a regression test.
export * from "./model/commands.js";
export {
  assertAgainstModel,
  checkAgainstModel,
  type MakeModelClient,
  type ModelCheckOptions,
  type ModelRunContext,
  type ReplayOptions,
  replayAgainstModel,
} from "./model/index.js";
export { ModelMismatch } from "./model/outcome.js";
export {
  MODEL_DEFAULTS,
  type ModelOptions,
  type ModelQueueOptions,
  type ModelSend,
  QueueModel,
  type Settler,
} from "./model/queue-model.js";
export { OnSubscription, Publish, TopicCall, type TopicStep } from "./model/topic-commands.js";
export type { World } from "./model/world.js";

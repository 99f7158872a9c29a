export { VirtualClock } from "../core/clock.js";
export { describeQueueContract } from "./contract/describe-queue-contract.js";
export type { ContractContext, ContractOptions, MakeClient } from "./contract/harness.js";
export { FailingProvider, type ProviderOperation } from "./failing-provider.js";

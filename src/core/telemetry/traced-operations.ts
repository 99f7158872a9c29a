import type { ReceivedMessage } from "../message.js";
import { SETTLE_NAMES } from "./attribute-names.js";
import type { ClientTelemetry } from "./client-telemetry.js";

/** A client method that settles a message (or renews its lock). */
export type SettleMethod = keyof typeof SETTLE_NAMES;

/** Runs a receive of `queue`: as it is, or recorded when telemetry records. */
export function tracedReceive(
  telemetry: ClientTelemetry,
  queue: string,
  receive: () => Promise<ReceivedMessage[]>,
): Promise<ReceivedMessage[]> {
  const recorder = telemetry.active();
  return recorder === undefined ? receive() : recorder.receive(queue, receive);
}

/** Runs a settlement (`method`) of a message of `queue`: as it is, or under a `settle` span. */
export function tracedSettle<T>(
  telemetry: ClientTelemetry,
  method: SettleMethod,
  queue: string,
  settle: () => Promise<T>,
): Promise<T> {
  const recorder = telemetry.active();
  return recorder === undefined ? settle() : recorder.settle(SETTLE_NAMES[method], queue, settle);
}

import type { MakeModelClient } from "../../src/testing/model/index.js";
import type { ModelOptions } from "../../src/testing/model/queue-model.js";
import { usePrefixes } from "../providers/nats/broker.js";

/**
 * Where the nats provider's semantics differ from the engine's: JetStream keeps time (ack waits,
 * delays), so runs never move it; a plain receive of a FIFO queue borrows the next free session
 * (its messages are read through the session, as on Service Bus); a redrive receives what it
 * moves (a message locked by a receiver stays, one it cannot move is given back with one delivery
 * more), as JetStream tells a locked message from a ready one only by delivering it.
 */
export const NATS_SEMANTICS: ModelOptions = {
  time: "broker",
  fifoReceive: "session",
  redrive: { receives: true, toSoleSource: false },
};

/**
 * Clients of the nats provider with the run's namespace as their stream prefix (the run's two
 * clients share its queues, no other run sees them); every stream is deleted after the file.
 */
export function natsPerRun(): MakeModelClient {
  const prefixes = usePrefixes({ deleteOnLastClose: true });
  // The run's clock times what the provider times itself (locks it enforces); runs never move it.
  return ({ namespace, clock }) => prefixes.client(namespace, { clock });
}

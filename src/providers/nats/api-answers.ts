import { type ApiError, JetStreamApiError, type PubAck } from "@nats-io/jetstream";
import type { Msg } from "@nats-io/transport-node";
import { QueueError } from "../../core/errors.js";

/** The JSON a JetStream API subject answered; an error it tells is thrown as the library's `JetStreamApiError`. */
export function apiAnswer<T>(message: Msg): T {
  const answer = message.json<T & { error?: ApiError }>();
  if (answer.error !== undefined) throw new JetStreamApiError(answer.error);
  return answer;
}

/** What a stream answered a publish: where it stored the message, or that it was a duplicate. */
export function pubAck(message: Msg): { duplicate: boolean; sequence: number } {
  const ack = apiAnswer<Partial<PubAck>>(message);
  if (typeof ack.stream !== "string" || ack.stream === "" || typeof ack.seq !== "number")
    throw new QueueError("Provider", `JetStream answered a publish with ${message.string()}`);
  return { duplicate: ack.duplicate === true, sequence: ack.seq };
}

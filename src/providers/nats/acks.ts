import { nanos } from "@nats-io/transport-node";
import { apiAnswer } from "./api-answers.js";
import type { NatsLink } from "./connection.js";
import type { AckInfo } from "./pulls.js";

/**
 * Acknowledges a delivery and resolves once JetStream answered: the ack is sent as a request,
 * which the server replies to after processing it.
 */
export async function ackConfirmed(link: NatsLink, ackSubject: string, what: string): Promise<void> {
  await link.call(what, () => link.nc.request(ackSubject, "+ACK", { timeout: link.timeoutMs }));
}

/**
 * Sends a nak (with a delay), a term or a progress mark as a request and resolves once JetStream
 * answered, which it does after processing it (a flush would only say the server read it: the
 * consumer applies acks in its own time, and two abandons could otherwise take effect out of order).
 */
export async function signalDelivery(
  link: NatsLink,
  ackSubject: string,
  kind: "nak" | "term" | "working",
  what: string,
  delayMs = 0,
): Promise<void> {
  const payload =
    kind === "term"
      ? "+TERM"
      : kind === "working"
        ? "+WPI"
        : delayMs > 0
          ? `-NAK ${JSON.stringify({ delay: nanos(delayMs) })}`
          : "-NAK";
  await link.call(what, () => link.nc.request(ackSubject, payload, { timeout: link.timeoutMs }));
}

/**
 * Removes a delivered message for good: erased from its stream (NATS 2.9 writes an erase to the
 * message's block at once, where a removal by ack or by plain delete is kept in memory and
 * written later, so a broker killed meanwhile would bring the message back), then acked or
 * terminated so the consumer forgets it. Resolves once the erase is answered: false when the
 * message (or its stream) was gone already. The ack or term is not waited for: once erased the
 * message is never delivered again (the server treats an erased pending message as acked), and
 * one lost with the connection only leaves the consumer an entry it drops at its ack wait.
 */
export async function removeDelivered(
  link: NatsLink,
  ackSubject: string,
  info: AckInfo,
  kind: "ack" | "term",
  what: string,
): Promise<boolean> {
  const erased = await eraseStored(link, info.stream, info.streamSequence, what);
  // Only after an erase: JetStream 2.9 removes the message an ack names from a work-queue stream
  // even when its consumer holds no such delivery, so a stale ack subject (the queue made again
  // since, numbering from 1) would remove another message.
  if (erased && !link.nc.isClosed()) link.nc.publish(ackSubject, kind === "ack" ? "+ACK" : "+TERM");
  return erased;
}

/**
 * Erases message `seq` of `stream` (written to its block at once, see {@link removeDelivered});
 * false when it was gone already: deleted or purged ("no message found"), past the stream's end
 * (its queue made again: "stream store EOF"), or the stream itself.
 */
export function eraseStored(link: NatsLink, stream: string, seq: number, what: string): Promise<boolean> {
  return link
    .ask(
      what,
      `$JS.API.STREAM.MSG.DELETE.${stream}`,
      JSON.stringify({ seq }),
      (answer) => apiAnswer<{ success: boolean }>(answer).success,
    )
    .catch((error: unknown) => {
      if (!/no message found|not found|store EOF/i.test(String((error as Error).message))) throw error;
      return false;
    });
}

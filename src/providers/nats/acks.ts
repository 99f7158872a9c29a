import { nanos } from "@nats-io/transport-node";
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
 * Removes a delivered message for good: first erased from its stream (NATS 2.9 writes an erase to
 * the message's block at once, where a removal by ack or by plain delete is kept in memory and
 * written later, so a broker killed meanwhile would bring the message back), then acked or
 * terminated, so the consumer forgets it; resolves once the server answered both.
 */
export async function removeDelivered(
  link: NatsLink,
  ackSubject: string,
  info: AckInfo,
  kind: "ack" | "term",
  what: string,
): Promise<void> {
  await link.call(what, () =>
    link.jsm.streams.deleteMessage(info.stream, info.streamSequence, true).catch((error: unknown) => {
      // Gone already (purged): the ack below still clears the consumer's pending entry.
      if (!/no message found|not found/i.test(String((error as Error).message))) throw error;
      return false;
    }),
  );
  if (kind === "ack") await ackConfirmed(link, ackSubject, what);
  else await signalDelivery(link, ackSubject, "term", what);
}

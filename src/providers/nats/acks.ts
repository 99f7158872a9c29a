import { nanos } from "@nats-io/transport-node";
import type { NatsLink } from "./connection.js";

/**
 * Acknowledges a delivery and resolves once JetStream answered: the ack is sent as a request,
 * which the server replies to after processing it.
 */
export async function ackConfirmed(link: NatsLink, ackSubject: string, what: string): Promise<void> {
  await link.call(what, () => link.nc.request(ackSubject, "+ACK", { timeout: link.timeoutMs }));
}

/**
 * Sends a nak (with a delay), a term or a progress mark and resolves once the server has it:
 * these get no reply, so a flush (a ping answered after everything sent before) confirms them.
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
  await link.call(what, async () => {
    link.nc.publish(ackSubject, payload);
    await link.nc.flush();
  });
}

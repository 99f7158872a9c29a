import type { Channel } from "amqplib";

/** How long a return is waited for to show in its queue's count (real time: the broker's own lag). */
export const RETURN_WAIT_MS = 2_000;

/**
 * Waits until `brokerQueue` counts at least `ready` messages ready, or `elsewhere()` says the
 * returned messages went another way, or {@link RETURN_WAIT_MS} passed. A quorum queue applies a
 * nack once its log has it, and its count (a passive declare) reads what is applied: a return is
 * waited for so that the next receive, of this client or another, finds the message where it was.
 */
export async function awaitReady(
  channel: Channel,
  brokerQueue: string,
  ready: number,
  elsewhere: () => boolean = () => false,
): Promise<void> {
  const deadline = Date.now() + RETURN_WAIT_MS;
  for (;;) {
    const { messageCount } = await channel.checkQueue(brokerQueue);
    if (messageCount >= ready || elsewhere() || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

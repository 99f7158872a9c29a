import type { JetStreamManager, StoredMsg } from "@nats-io/jetstream";

/**
 * The message stored at `seq` of `stream`, or `null` when it or its stream is gone. Asked of the
 * JetStream API, which answers at once that a deleted stream is not found, where a direct get
 * finds no responder and waits out its timeout (5 s) — long enough to stall a settle of a message
 * whose queue another client deleted.
 */
export async function storedMessage(
  jsm: JetStreamManager,
  stream: string,
  seq: number,
): Promise<StoredMsg | null> {
  try {
    const found = await jsm.streams.getMessage(stream, { seq });
    return found?.seq === seq ? found : null;
  } catch (error) {
    if (/no message found|not found/i.test(String((error as Error).message))) return null;
    throw error;
  }
}

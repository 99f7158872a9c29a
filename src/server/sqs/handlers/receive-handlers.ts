import { type Message, sqsError } from "../../../aws/index.js";
import { QueueError } from "../../../core/errors.js";
import type { LockReference, MessageRecord } from "../../../engine/records.js";
import type { QueueRecord } from "../../../rules/queue-records.js";
import { checkToken, type ReceiveSelection, toSqsMessage } from "../message-codec.js";
import { defaultWaitSeconds } from "../queue-attributes.js";
import { receiptHandleOf } from "../receipt-handles.js";
import type { Handlers, ServiceState } from "../sqs-service.js";

function whole(
  parameter: string,
  value: number | undefined,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max)
    throw sqsError(
      "InvalidParameterValue",
      `Value ${value} for parameter ${parameter} is invalid. Reason: Must be between ${min} and ${max}, if provided.`,
    );
  return value;
}

interface Received {
  readonly message: Message;
  readonly lock: LockReference;
}

function deliverer(state: ServiceState, queue: QueueRecord, selection: ReceiveSelection) {
  return (record: MessageRecord): Received => {
    const lock = { queue: queue.name, seq: record.seq, lockToken: record.lockToken! };
    return { message: toSqsMessage(record, queue, receiptHandleOf(lock), selection, state.addresses), lock };
  };
}

// A retried FIFO receive gets the same messages back while all of them are still locked by it.
function retried(
  state: ServiceState,
  queue: QueueRecord,
  attemptId: string,
  lockDurationMs: number,
  deliver: (record: MessageRecord) => Received,
): Received[] | undefined {
  const locks = state.attempts.find(queue.name, attemptId);
  if (locks === undefined) return undefined;
  try {
    return state.engine.transaction(() =>
      locks.map((lock) => state.engine.relock(lock, lockDurationMs, deliver)),
    );
  } catch {
    return undefined;
  }
}

/** Gives a lock back uncounted, unless it ended or its message was settled meanwhile. */
function giveBackIfHeld(state: ServiceState, lock: LockReference): void {
  try {
    state.engine.giveBack(lock);
  } catch (error) {
    if (!QueueError.is(error)) throw error;
  }
}

/** ReceiveMessage: long polls that end as soon as a message is ready. */
export const receiveHandlers: Handlers = {
  async ReceiveMessage(state, input, call) {
    const queue = state.queueOf(input.QueueUrl);
    const max = whole("MaxNumberOfMessages", input.MaxNumberOfMessages, 1, 10, 1);
    const waitSeconds = whole("WaitTimeSeconds", input.WaitTimeSeconds, 0, 20, defaultWaitSeconds(queue));
    const visibility = whole(
      "VisibilityTimeout",
      input.VisibilityTimeout,
      0,
      43_200,
      queue.lockDurationMs / 1000,
    );
    const attemptId = queue.fifo ? input.ReceiveRequestAttemptId : undefined;
    if (attemptId !== undefined) checkToken("ReceiveRequestAttemptId", attemptId);
    const selection: ReceiveSelection = {
      systemAttributes: [...(input.MessageSystemAttributeNames ?? []), ...(input.AttributeNames ?? [])],
      messageAttributes: input.MessageAttributeNames ?? [],
    };
    const deliver = deliverer(state, queue, selection);
    const lockDurationMs = visibility * 1000;
    let received =
      attemptId === undefined ? undefined : retried(state, queue, attemptId, lockDurationMs, deliver);
    received ??= await state.engine.receive(queue.name, max, deliver, {
      waitMs: waitSeconds * 1000,
      signal: call.signal,
      lockDurationMs,
      // The first try is a write like the others: receives, sends and deletes read in one turn share a commit.
      firstTry: (write) => state.writes.run(write),
    });
    // A receiver that left never sees these: they go back at once, their delivery uncounted.
    if (received.length > 0)
      call.onUndelivered(() => {
        // A store that fails now leaves them locked until their visibility timeout, as before.
        state.writes
          .run(() => {
            for (const { lock } of received) giveBackIfHeld(state, lock);
          })
          .catch(() => undefined);
      }, waitSeconds > 0);
    if (attemptId !== undefined && received.length > 0)
      state.attempts.remember(
        queue.name,
        attemptId,
        received.map((entry) => entry.lock),
      );
    return received.length === 0 ? {} : { Messages: received.map((entry) => entry.message) };
  },
};

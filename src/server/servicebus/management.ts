import rhea from "rhea";
import { QueueError } from "../../core/errors.js";
import { isDeferred, isDeferredLock } from "../../engine/deferral-marks.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import type { LockReference, MessageRecord } from "../../engine/records.js";
import { type AmqpError, amqpErrorOf, CONDITIONS, statusOf } from "./amqp-errors.js";
import type { AmqpMessage } from "./amqp-message.js";
import { lockOf, lockTokenBytes } from "./lock-tokens.js";
import { type Body, type ManagementContext, type ManagementReply, ok } from "./management-reply.js";
import {
  encodeMessage,
  MESSAGE_STATE,
  propertiesToModify,
  toAmqpMessage,
  toEngineMessage,
} from "./message-mapping.js";
import { RULE_OPERATIONS } from "./rule-management.js";

/** The most messages one peek answers. */
const MAX_PEEK = 1_000;

type Operation = (context: ManagementContext, body: Body) => ManagementReply;

const OPERATIONS: Readonly<Record<string, Operation>> = {
  ...RULE_OPERATIONS,
  "com.microsoft:renew-lock": (context, body) => {
    const expirations = lockTokensOf(body).map((token) => {
      const lock = requireLock(context, token);
      return new Date(context.engine.extendLock(lock));
    });
    return ok({ expirations });
  },

  "com.microsoft:peek-message": (context, body) => {
    const from = peekStart(body["from-sequence-number"]);
    if (from === undefined) return { statusCode: 204, description: "No Content" };
    const asked = body["message-count"] ?? 1;
    if (typeof asked !== "number" || !Number.isInteger(asked) || asked < 0)
      throw new QueueError("Validation", "message-count must be a whole number, 0 or more");
    const count = Math.min(MAX_PEEK, asked);
    const sessionId = typeof body["session-id"] === "string" ? body["session-id"] : undefined;
    const records = peek(context.engine, context.queue.name, from, count, sessionId);
    if (records.length === 0) return { statusCode: 204, description: "No Content" };
    const messages = records.map((record) => ({
      message: encodeMessage(
        toAmqpMessage(record, { state: stateOf(record, context.engine.clock.now()), peeked: true }),
      ),
    }));
    return ok({ messages });
  },

  "com.microsoft:schedule-message": (context, body) => {
    const entries = Array.isArray(body.messages) ? (body.messages as Body[]) : [];
    const now = context.engine.clock.now();
    const messages = entries.map((entry) => {
      if (!Buffer.isBuffer(entry?.message))
        throw new QueueError("Validation", "each scheduled message must be an encoded message");
      return toEngineMessage(decodeMessage(entry.message), now, context.deduplicate);
    });
    const outcomes = context.engine.send(context.queue.name, messages);
    const sequenceNumbers = outcomes.map((outcome) => {
      if (!outcome.ok) throw outcome.error;
      return outcome.seq;
    });
    return ok({ "sequence-numbers": rhea.types.wrap_array(sequenceNumbers, 0x81, undefined) });
  },

  "com.microsoft:cancel-scheduled-message": (context, body) => {
    context.engine.cancelScheduled(context.queue.name, sequenceNumbersOf(body));
    return ok();
  },

  "com.microsoft:receive-by-sequence-number": (context, body) => {
    const seqs = sequenceNumbersOf(body);
    const deleteOnReceive = Number(body["receiver-settle-mode"] ?? 1) === 0;
    const queue = context.queue.name;
    const received = context.engine.receiveDeferred(queue, seqs, (record) => ({
      // Still deferred while locked: the SDK reads the state from the message, not from how it came.
      message: encodeMessage(
        toAmqpMessage(record, { lockedUntil: record.visibleAt, state: MESSAGE_STATE.deferred }),
      ),
      lock: { queue, seq: record.seq, lockToken: record.lockToken! } satisfies LockReference,
    }));
    const messages = received.map(({ message, lock }) => {
      if (deleteOnReceive) context.engine.complete(lock);
      return {
        message,
        "lock-token": rhea.types.wrap_uuid(lockTokenBytes(lock.queue, lock.seq, lock.lockToken)),
      };
    });
    return ok({ messages });
  },

  "com.microsoft:update-disposition": (context, body) => {
    const status = body["disposition-status"];
    const edit = propertiesToModify(body["properties-to-modify"]);
    for (const token of lockTokensOf(body)) {
      const lock = requireLock(context, token);
      if (status === "completed") context.engine.complete(lock);
      else if (status === "abandoned") context.engine.abandon(lock, 0, edit);
      else if (status === "defered") context.engine.defer(lock, edit);
      else if (status === "suspended")
        context.engine.deadLetter(
          lock,
          typeof body["deadletter-reason"] === "string" ? body["deadletter-reason"] : "",
          typeof body["deadletter-description"] === "string" ? body["deadletter-description"] : undefined,
          edit,
        );
      else throw new QueueError("Validation", `unknown disposition-status ${JSON.stringify(status)}`);
    }
    return ok();
  },

  "com.microsoft:renew-session-lock": (context, body) => {
    const lock = heldSession(context, body);
    const expiration = context.engine.renewSession(lock);
    context.sessions.hold({ ...lock, lockedUntil: expiration });
    return ok({ expiration: new Date(expiration) });
  },

  "com.microsoft:get-session-state": (context, body) => {
    const state = context.engine.getSessionState(heldSession(context, body));
    return ok({ "session-state": state === null ? null : Buffer.from(state) });
  },

  "com.microsoft:set-session-state": (context, body) => {
    const state = body["session-state"];
    context.engine.setSessionState(
      heldSession(context, body),
      Buffer.isBuffer(state) ? new Uint8Array(state) : null,
    );
    return ok();
  },
};

/** The operation a `$management` request names, as the request counts label it: `unsupported` for one this server lacks. */
export function managementOperationOf(request: AmqpMessage): string {
  const name = request.application_properties?.operation;
  // Only names the server serves become labels: a client's made-up name adds no series.
  return typeof name === "string" && OPERATIONS[name] !== undefined
    ? name.replace(/^com\.microsoft:/, "")
    : "unsupported";
}

/** Answers one `$management` request; a failure is a reply with the condition the SDK maps, never a thrown error. */
export function answerManagement(context: ManagementContext, request: AmqpMessage): ManagementReply {
  const name = request.application_properties?.operation;
  const operation = typeof name === "string" ? OPERATIONS[name] : undefined;
  if (operation === undefined)
    return failure({
      condition: CONDITIONS.notImplemented,
      description: `the management operation ${JSON.stringify(name)} is not supported by this server`,
    });
  const body = request.body !== null && typeof request.body === "object" ? (request.body as Body) : {};
  try {
    return operation(context, body);
  } catch (error) {
    return failure(amqpErrorOf(error));
  }
}

/** A message a request carries encoded; one that does not decode is the client's error. */
function decodeMessage(bytes: Buffer): AmqpMessage {
  try {
    return rhea.message.decode(bytes) as AmqpMessage;
  } catch (error) {
    throw new QueueError(
      "Validation",
      `a message in the request does not decode: ${(error as Error).message}`,
    );
  }
}

function failure(error: AmqpError): ManagementReply {
  return { statusCode: statusOf(error), description: error.description, errorCondition: error.condition };
}

/** The messages a peek shows: the queue's, or one session's. */
function peek(
  engine: QueueEngine,
  queue: string,
  from: number,
  count: number,
  sessionId: string | undefined,
): MessageRecord[] {
  if (sessionId === undefined) return engine.peek(queue, from, count);
  const found: MessageRecord[] = [];
  // A session's messages are read in pages of the queue's, so that one session among many still takes few steps.
  for (let next = from; found.length < count; ) {
    const page = engine.peek(queue, next, MAX_PEEK);
    for (const record of page) if (record.sessionId === sessionId && found.length < count) found.push(record);
    if (page.length < MAX_PEEK) break;
    next = page.at(-1)!.seq + 1;
  }
  return found;
}

function stateOf(record: MessageRecord, now: number): (typeof MESSAGE_STATE)[keyof typeof MESSAGE_STATE] {
  // A deferred message locked by its sequence number is still deferred: releasing it defers it again.
  if (isDeferred(record) || isDeferredLock(record.lockToken)) return MESSAGE_STATE.deferred;
  // A peek applies no time: a schedule whose time has come is active though no receive has looked yet.
  if (record.state === "delayed" && record.deliveryCount === 0 && record.visibleAt > now)
    return MESSAGE_STATE.scheduled;
  return MESSAGE_STATE.active;
}

function requireLock(context: ManagementContext, token: Buffer): LockReference {
  const lock = lockOf(context.engine, context.queue.name, token);
  if (lock === undefined)
    throw new QueueError(
      "InvalidReceipt",
      "The lock supplied is invalid. Either the lock expired, or the message has already been removed from the queue.",
    );
  return lock;
}

function heldSession(context: ManagementContext, body: Body) {
  const sessionId = body["session-id"];
  if (typeof sessionId !== "string") throw new QueueError("Validation", "the request names no session-id");
  const lock = context.sessions.find(context.queue.name, sessionId);
  if (lock === undefined)
    throw new QueueError("SessionLockLost", `the session lock on ${sessionId} is not held by any receiver`);
  return lock;
}

function lockTokensOf(body: Body): Buffer[] {
  const tokens = body["lock-tokens"];
  if (!Array.isArray(tokens) || !tokens.every((token) => Buffer.isBuffer(token) && token.length === 16))
    throw new QueueError("Validation", "lock-tokens must be an array of UUIDs");
  return tokens as Buffer[];
}

function sequenceNumbersOf(body: Body): number[] {
  const values = body["sequence-numbers"];
  if (!Array.isArray(values))
    throw new QueueError("Validation", "sequence-numbers must be an array of longs");
  return values.map((value) => sequenceNumberOf(value, "sequence-numbers"));
}

/** Where a peek starts; `undefined` past every sequence number the engine gives (a long beyond 2^53), where there is nothing to show. */
function peekStart(value: unknown): number | undefined {
  if (
    Buffer.isBuffer(value) &&
    value.length === 8 &&
    value.readBigInt64BE() > BigInt(Number.MAX_SAFE_INTEGER)
  )
    return undefined;
  return sequenceNumberOf(value, "from-sequence-number");
}

/** A sequence number as rhea decodes an AMQP long: a number, or 8 big-endian bytes past 2^53. */
function sequenceNumberOf(value: unknown, field: string): number {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (Buffer.isBuffer(value) && value.length === 8) {
    const number = value.readBigInt64BE();
    if (number <= BigInt(Number.MAX_SAFE_INTEGER) && number >= 0n) return Number(number);
  }
  throw new QueueError("Validation", `${field} must hold sequence numbers (longs)`);
}

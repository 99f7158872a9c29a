import type { QueueEngine } from "../../engine/queue-engine.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { SessionRegistry } from "./session-registry.js";

/** What a management request is answered against: the engine, the entity's queue, the sessions held. */
export interface ManagementContext {
  readonly engine: QueueEngine;
  readonly queue: QueueRecord;
  readonly sessions: SessionRegistry;
  /** Whether messages scheduled on the queue are deduplicated by their message id. */
  readonly deduplicate: boolean;
}

/** A management reply: its status and, on success, its body. */
export interface ManagementReply {
  readonly statusCode: number;
  readonly description: string;
  readonly errorCondition?: string;
  readonly body?: Record<string, unknown>;
}

/** A request's or a reply's body: an AMQP map as rhea decodes it. */
export type Body = Record<string, unknown>;

/** A successful reply, with a body when there is one to give. */
export function ok(body?: Body): ManagementReply {
  return { statusCode: 200, description: "OK", ...(body ? { body } : {}) };
}

import rhea from "rhea";
import type { AmqpError } from "./amqp-errors.js";

/** rhea's outcome constructors, which its typings leave out. */
interface OutcomeFactory {
  accepted(): { described(): unknown };
  rejected(fields: { error: AmqpError }): { described(): unknown };
}

const outcomes = rhea.message as unknown as OutcomeFactory;

/** The `accepted` outcome, described for a disposition. */
export function acceptedOutcome(): unknown {
  return outcomes.accepted().described();
}

/** A `rejected` outcome carrying `error`, described for a disposition. */
export function rejectedOutcome(error: AmqpError): unknown {
  return outcomes.rejected({ error }).described();
}

/** What a receiver's disposition said: the outcome's name and fields. */
export interface RemoteOutcome {
  readonly undeliverable_here?: boolean;
  readonly message_annotations?: Record<string, unknown>;
  readonly error?: { readonly condition?: unknown; readonly description?: unknown; readonly info?: unknown };
}

/** What a `rejected` outcome asks of a dead-letter: the reason, the description and, in the rest of its error's info, properties to modify. */
export interface DeadLetterRequest {
  readonly reason: string;
  readonly description: string | undefined;
  readonly propertiesToModify: Record<string, unknown>;
}

/** Reads a dead-letter request from a `rejected` outcome (the SDK puts the reason and description beside the properties to modify). */
export function deadLetterRequest(outcome: RemoteOutcome): DeadLetterRequest {
  const info = outcome.error?.info;
  const { DeadLetterReason, DeadLetterErrorDescription, ...propertiesToModify } =
    info !== null && typeof info === "object" && !Array.isArray(info) && !Buffer.isBuffer(info)
      ? (info as Record<string, unknown>)
      : {};
  return {
    reason: typeof DeadLetterReason === "string" ? DeadLetterReason : "",
    description: typeof DeadLetterErrorDescription === "string" ? DeadLetterErrorDescription : undefined,
    propertiesToModify,
  };
}

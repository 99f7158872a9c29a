import { issuePath, type StandardIssue } from "../core/standard-schema.js";

/** Why a message was parked. */
export const PARK_REASONS = ["unlisted_type", "unreadable", "too_large"] as const;

/** Why a message was parked: a type no event lists, a body that is not its event, or an event too large. */
export type ParkReason = (typeof PARK_REASONS)[number];

/** One reason a message could not be read: where (a dotted field path, `""` for the whole body) and which rule. Never the value. */
export interface Problem {
  readonly field: string;
  readonly rule: string;
}

/** The problem of a body that is not UTF-8 JSON. */
export const NOT_JSON: Problem = Object.freeze({ field: "", rule: "json" });

/** The problem of an event the store refuses as a statement, as it would every time. */
export const REFUSED_BY_STORE: Problem = Object.freeze({ field: "", rule: "store" });

/** The problem of a schema that threw instead of answering. */
export const SCHEMA_THREW: Problem = Object.freeze({ field: "", rule: "schema_error" });

/** A Standard Schema issue as a problem: its path and its code (zod, ArkType) or type (valibot); its message, which may quote the value, is dropped. */
export function problemOf(issue: StandardIssue): Problem {
  const field = issuePath(issue);
  const { code, type } = issue as { code?: unknown; type?: unknown };
  const rule = typeof code === "string" ? code : typeof type === "string" ? type : "invalid";
  return { field, rule };
}

import type { FilterKind, SubscriptionFilter } from "../../core/topics.js";

/** A typed application property: our core carries strings, Service Bus carries numbers and booleans too. */
export type AttributeValue = string | number | boolean;

// The public shapes are the client API's (src/core/topics.ts); this folder implements them.
export type { CorrelationFilter, FilterKind, SubscriptionFilter } from "../../core/topics.js";

/** What an SNS filter policy looks at, as SNS's `FilterPolicyScope`. */
export const POLICY_SCOPES = ["attributes", "body"] as const satisfies readonly PolicyScope[];

/** `attributes` (SNS's `MessageAttributes`, the default) or `body` (`MessageBody`, parsed as JSON). */
export type PolicyScope = NonNullable<Extract<SubscriptionFilter, { readonly policy: unknown }>["scope"]>;

/** The kinds of filter, as `capabilities.filters` lists them. */
export const FILTER_KINDS = ["correlation", "sql", "policy"] as const satisfies readonly FilterKind[];

/** What a filter looks at: a message's system properties, its attributes and (for body-scoped policies) its body. */
export interface FilterableMessage {
  readonly body: Uint8Array;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly messageId?: string;
  readonly correlationId?: string;
  readonly subject?: string;
  readonly contentType?: string;
  readonly sessionId?: string;
  readonly to?: string;
  readonly replyTo?: string;
}

/** A filter checked once and ready to test messages. */
export interface CompiledFilter {
  readonly kind: FilterKind;
  /** True when the message passes the filter (for SQL: the expression is TRUE, not FALSE or unknown). */
  matches(message: FilterableMessage): boolean;
}

/** The system properties a correlation filter and `sys.<name>` can name. */
export const SYSTEM_PROPERTIES = [
  "correlationId",
  "subject",
  "contentType",
  "messageId",
  "sessionId",
  "to",
  "replyTo",
] as const;

/** One of {@link SYSTEM_PROPERTIES}. */
export type SystemProperty = (typeof SYSTEM_PROPERTIES)[number];

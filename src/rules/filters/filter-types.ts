/** A typed application property: our core carries strings, Service Bus carries numbers and booleans too. */
export type AttributeValue = string | number | boolean;

/** A filter matching when every field it gives equals the message's (attribute names as in {@link attributeOf}). */
export interface CorrelationFilter {
  correlationId?: string;
  subject?: string;
  contentType?: string;
  messageId?: string;
  sessionId?: string;
  to?: string;
  replyTo?: string;
  /** Each name present on the message with an equal value (a number or boolean equals its canonical text). */
  attributes?: Record<string, AttributeValue>;
}

/** What an SNS filter policy looks at, as SNS's `FilterPolicyScope`. */
export const POLICY_SCOPES = ["attributes", "body"] as const;

/** `attributes` (SNS's `MessageAttributes`, the default) or `body` (`MessageBody`, parsed as JSON). */
export type PolicyScope = (typeof POLICY_SCOPES)[number];

/** A rule's filter: a correlation filter, a Service Bus SQL expression, or an SNS filter policy. */
export type SubscriptionFilter =
  | { readonly correlation: CorrelationFilter }
  | { readonly sql: string }
  | { readonly policy: string | Record<string, unknown>; readonly scope?: PolicyScope };

/** The kinds of filter, as `capabilities.filters` lists them. */
export const FILTER_KINDS = ["correlation", "sql", "policy"] as const;

/** One kind of {@link SubscriptionFilter}. */
export type FilterKind = (typeof FILTER_KINDS)[number];

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

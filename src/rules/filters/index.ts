export { compileFilter, DEFAULT_RULE_NAME, MATCH_ALL } from "./compile-filter.js";
export type {
  AttributeValue,
  CompiledFilter,
  CorrelationFilter,
  FilterableMessage,
  FilterKind,
  PolicyScope,
  SubscriptionFilter,
  SystemProperty,
} from "./filter-types.js";
export { FILTER_KINDS, POLICY_SCOPES, SYSTEM_PROPERTIES } from "./filter-types.js";
export { filterableOf } from "./filterable-message.js";
export { filterKind, parseFilter } from "./parse-filter.js";
export { POLICY_LIMITS } from "./policy/policy-filter.js";
export { MAX_SQL_FILTER_LENGTH } from "./sql/sql-parser.js";

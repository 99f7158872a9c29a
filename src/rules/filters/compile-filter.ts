import { compileCorrelationFilter } from "./correlation-filter.js";
import type { CompiledFilter, SubscriptionFilter } from "./filter-types.js";
import { parseFilter } from "./parse-filter.js";
import { compilePolicyFilter } from "./policy/policy-filter.js";
import { compileSqlFilter } from "./sql/sql-filter.js";

/** The filter of the rule every subscription gets when created without rules: Service Bus's `1=1`. */
export const MATCH_ALL: SubscriptionFilter = Object.freeze({ sql: "1=1" });

/** The name of that rule, as on Service Bus. */
export const DEFAULT_RULE_NAME = "$Default";

/** Checks a filter (its shape, its expression or policy, its limits) and compiles it; Validation names the problem. */
export function compileFilter(filter: SubscriptionFilter): CompiledFilter {
  // Checked again here: a filter typed in TypeScript may still come from JSON at run time.
  const checked = parseFilter(filter);
  if ("correlation" in checked) return compileCorrelationFilter(checked.correlation);
  if ("sql" in checked) return compileSqlFilter(checked.sql);
  return compilePolicyFilter(checked.policy, checked.scope ?? "attributes");
}

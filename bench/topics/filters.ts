import { fileURLToPath } from "node:url";
import {
  type CompiledFilter,
  compileFilter,
  type FilterableMessage,
  type SubscriptionFilter,
} from "../../src/rules/filters/index.js";
import { bestOf, type Measurement, measure, report } from "../lib.js";

/** Evaluations per measured run: enough for a run of a few hundred ms at the goal of 2 µs. */
const EVALUATIONS = 1_000_000;
/** Distinct messages cycled through, so that no one message's shape is all the JIT sees. */
const MESSAGES = 1_000;
const RUNS = 5;
const encoder = new TextEncoder();

/** A published order as a publisher sends it: string attributes (as our core's are), a JSON body. */
function order(index: number): FilterableMessage {
  const region = ["eu", "us", "uk", "ap"][index % 4]!;
  const amount = String((index * 37) % 250);
  return {
    body: encoder.encode(
      JSON.stringify({ region, amount: Number(amount), customer: { tier: "gold", id: index } }),
    ),
    attributes: { region, amount, source: "checkout", version: "3", traceId: `t-${index}` },
    messageId: `m-${index}`,
    correlationId: `c-${index % 10}`,
    subject: index % 3 === 0 ? "order.created" : "order.paid",
    contentType: "application/json",
  };
}

/** The filters measured: a typical one of each kind, and a richer SQL one. */
const FILTERS: readonly { readonly name: string; readonly filter: SubscriptionFilter }[] = [
  { name: "sql: region = 'eu' AND amount > 100", filter: { sql: "region = 'eu' AND amount > 100" } },
  {
    name: "sql: sys.label LIKE 'order.%' AND region IN ('eu', 'uk') AND amount * 1.2 >= 100 AND EXISTS(traceId)",
    filter: {
      sql: "sys.label LIKE 'order.%' AND region IN ('eu', 'uk') AND amount * 1.2 >= 100 AND EXISTS(traceId)",
    },
  },
  {
    name: "correlation: subject order.created, attributes region eu",
    filter: { correlation: { subject: "order.created", attributes: { region: "eu" } } },
  },
  {
    name: "policy (attributes): region [eu], amount numeric > 100",
    filter: { policy: { region: ["eu"], amount: [{ numeric: [">", 100] }] } },
  },
  {
    name: "policy (body, parsed body cached): region [eu], amount > 100, customer.tier [gold]",
    filter: {
      policy: { region: ["eu"], amount: [{ numeric: [">", 100] }], customer: { tier: ["gold"] } },
      scope: "body",
    },
  },
];

/** Evaluates `filter` `count` times over `messages`; the matches are counted so none of it is optimised away. */
function evaluate(filter: CompiledFilter, messages: readonly FilterableMessage[], count: number): number {
  let matched = 0;
  for (let i = 0; i < count; i++) if (filter.matches(messages[i % messages.length]!)) matched++;
  return matched;
}

/** One filter's cost: the best of {@link RUNS} runs of {@link EVALUATIONS} evaluations, after a warm-up. */
async function costOf(name: string, filter: SubscriptionFilter, messages: readonly FilterableMessage[]) {
  const compiled = compileFilter(filter);
  evaluate(compiled, messages, EVALUATIONS / 5);
  let matched = 0;
  const best = await bestOf(RUNS, () =>
    measure(name, EVALUATIONS, () => {
      matched = evaluate(compiled, messages, EVALUATIONS);
    }),
  );
  return withNote(best, `${((matched / EVALUATIONS) * 100).toFixed(0)}% matched`);
}

/**
 * A body-scoped policy on messages it has not seen: each evaluation parses a body (the first rule
 * of a publish pays this; the others find it parsed).
 */
async function coldBodyCost(): Promise<Measurement> {
  const { filter } = FILTERS[FILTERS.length - 1]!;
  const compiled = compileFilter(filter);
  const count = EVALUATIONS / 10;
  const fresh = () => Array.from({ length: count }, (_, index) => order(index));
  evaluate(compiled, fresh(), count);
  const best = await bestOf(RUNS, () => {
    const messages = fresh();
    return measure("policy (body, each body parsed anew): the same policy", count, () =>
      evaluate(compiled, messages, count),
    );
  });
  return withNote(best, "");
}

function withNote(measurement: Measurement, note: string): Measurement {
  const micros = (measurement.ms * 1000) / measurement.items;
  return { ...measurement, note: `${micros.toFixed(3)} µs per rule per message${note ? `, ${note}` : ""}` };
}

/** The cost of evaluating one rule's filter on one message, for each kind of filter (goal: under 2 µs). */
export async function filterCosts(): Promise<Measurement[]> {
  const messages = Array.from({ length: MESSAGES }, (_, index) => order(index));
  const results: Measurement[] = [];
  for (const { name, filter } of FILTERS) results.push(await costOf(name, filter, messages));
  results.push(await coldBodyCost());
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  report("Filter evaluation, per rule per message", await filterCosts());

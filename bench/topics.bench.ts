import { report } from "./lib.js";
import { contest, type FanOutResult } from "./topics/contest.js";
import { filterCosts } from "./topics/filters.js";
import { POSTGRES_TOPICS } from "./topics/postgres.js";
import { SERVICEBUS_TOPICS } from "./topics/servicebus.js";
import { SQLITE_TOPICS } from "./topics/sqlite.js";
import { goalLines, printFanOut, printSummary } from "./topics/summary.js";
import type { TopicStore } from "./topics/topic-side.js";

/** The subscription counts of issue 29. */
const FAN_OUTS = [1, 10, 100] as const;
const STORES: readonly TopicStore[] = [SQLITE_TOPICS, POSTGRES_TOPICS, SERVICEBUS_TOPICS];
const PARTS = ["sqlite", "postgres", "servicebus", "filters"] as const;
type Part = (typeof PARTS)[number];

/** The parts `args` name (`npm run bench -- topics postgres`); all of them when none is named. */
function partsWanted(args: readonly string[]): Part[] {
  const named = PARTS.filter((part) => args.includes(part));
  return named.length > 0 ? named : [...PARTS];
}

/** The contest on one store, every fan-out, its tables printed; returns its goal lines. */
async function onStore(store: TopicStore): Promise<string[]> {
  const results: FanOutResult[] = [];
  for (const subscriptions of FAN_OUTS) {
    const result = await contest(store, subscriptions);
    printFanOut(store, result);
    results.push(result);
  }
  printSummary(store, results);
  return goalLines(store, results);
}

/** `npm run bench -- topics [sqlite|postgres|servicebus|filters]`: publishing against plain sends on each store, draining the copies, and filter costs. */
export async function run(args: readonly string[] = []): Promise<void> {
  const parts = partsWanted(args);
  const goals: string[] = [];
  for (const store of STORES) if (parts.includes(store.key)) goals.push(...(await onStore(store)));
  if (parts.includes("filters"))
    report("Filter evaluation, per rule per message (goal: under 2 µs)", await filterCosts());
  if (goals.length > 0)
    console.log(`\n### Topic goals (issue 29)\n\n${goals.map((goal) => `- ${goal}`).join("\n")}`);
}

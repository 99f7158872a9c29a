/** The topic every store's contest publishes to, and the queue its plain sends go to. */
export const TOPIC = "orders";
export const PLAIN_QUEUE = "plain";

/** The SQL rule of the filtered subscriptions: half the orders (those of region `eu`) match it. */
export const RULE_SQL = "region = 'eu' AND amount >= 0";

/** One order as each store's client turns it into a message: a JSON body and two attributes. */
export interface Order {
  readonly body: { readonly order: number; readonly sku: string; readonly qty: number };
  readonly region: "eu" | "us";
  readonly amount: number;
}

/** Order `index`: every other one is in region `eu`, so half match {@link RULE_SQL}. */
export function orderOf(index: number): Order {
  return {
    body: { order: index, sku: "A-1", qty: 3 },
    region: index % 2 === 0 ? "eu" : "us",
    amount: index % 250,
  };
}

/** Subscription `index`'s name; the odd ones are filtered by {@link RULE_SQL}, the even ones take everything. */
export const subscriptionName = (index: number): string => `s${index}`;

/** Whether subscription `index` holds only the orders {@link RULE_SQL} matches. */
export const isFiltered = (subscription: number): boolean => subscription % 2 === 1;

/** How many copies of order `index` subscription `subscription` gets: 1 or 0. */
export function copiesFor(subscription: number, index: number): number {
  return !isFiltered(subscription) || orderOf(index).region === "eu" ? 1 : 0;
}

/** How many copies subscription `subscription` holds after orders 0 to `messages` - 1 were published. */
export function copiesHeld(subscription: number, messages: number): number {
  return isFiltered(subscription) ? Math.ceil(messages / 2) : messages;
}

/** Every copy a publish of orders 0 to `messages` - 1 makes on a topic of `subscriptions`. */
export function copiesOf(subscriptions: number, messages: number): number {
  let copies = 0;
  for (let subscription = 0; subscription < subscriptions; subscription++)
    copies += copiesHeld(subscription, messages);
  return copies;
}

/** Orders `from` to `to` - 1 in batches of up to `size` indexes, as `publishAll` sends them. */
export function batchesOf(from: number, to: number, size: number): number[][] {
  const batches: number[][] = [];
  for (let start = from; start < to; start += size)
    batches.push(Array.from({ length: Math.min(size, to - start) }, (_, offset) => start + offset));
  return batches;
}

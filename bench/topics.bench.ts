import { createClient, type MessageInput, type QueueClient, subscriptionPath } from "../src/index.js";
import { bestOfRounds, type Measurement, measure, report, temporaryFile } from "./lib.js";
import { filterCosts } from "./topics/filters.js";

/** Publishes (and plain sends) per measured run, one at a time as an application's requests make them. */
const MESSAGES = Number(process.env.TOPICS_BENCH_MESSAGES ?? 2_000);
/** The subscription counts of issue 29. */
const FAN_OUTS = [1, 10, 100] as const;
const RUNS = 3;
/** Half the messages match the filtered subscriptions' rule. */
const messages: MessageInput[] = Array.from({ length: MESSAGES }, (_, index) => ({
  body: JSON.stringify({ order: index, sku: "A-1", qty: 3 }),
  attributes: { region: index % 2 === 0 ? "eu" : "us", amount: String(index % 250) },
}));

/** A new SQLite file with topic `orders` of `subscriptions`, half of them filtered by a SQL rule. */
async function topicOf(subscriptions: number): Promise<{ client: QueueClient; remove: () => void }> {
  const { path, remove } = temporaryFile("topics.db");
  const client = await createClient({ provider: { type: "sqlite", path } });
  await client.admin.createTopic("orders");
  for (let index = 0; index < subscriptions; index++)
    await client.admin.createSubscription(
      "orders",
      `s${index}`,
      index % 2 === 1 ? { rules: [{ name: "eu", filter: { sql: "region = 'eu' AND amount >= 0" } }] } : {},
    );
  await client.admin.createQueue("plain");
  return { client, remove };
}

/** The copies a publish of {@link messages} makes on a topic of `subscriptions`. */
function copiesOf(subscriptions: number): number {
  const filtered = Math.floor(subscriptions / 2);
  return (subscriptions - filtered) * MESSAGES + filtered * Math.ceil(MESSAGES / 2);
}

/**
 * One at a time: `publishMessage` to a topic of `subscriptions`, and the same messages sent to a
 * queue of the same file, taking turns over {@link RUNS} rounds (the machine is shared: the best
 * of each is kept).
 */
async function publishAndSend(subscriptions: number): Promise<Measurement[]> {
  const timed =
    (name: string, call: (client: QueueClient, message: MessageInput) => Promise<unknown>) => async () => {
      const { client, remove } = await topicOf(subscriptions);
      try {
        return await measure(name, MESSAGES, async () => {
          for (const message of messages) await call(client, message);
        });
      } finally {
        await client.close();
        remove();
      }
    };
  const [publish, send] = await bestOfRounds(RUNS, [
    timed(`publishMessage to a topic of ${subscriptions}`, (client, message) =>
      client.publishMessage("orders", message),
    ),
    timed(`sendMessage to a queue (beside a topic of ${subscriptions})`, (client, message) =>
      client.sendMessage("plain", message),
    ),
  ]);
  return [
    { ...publish!.best, note: `${copiesOf(subscriptions)} copies` },
    { ...send!.best, note: "floor: one plain send" },
  ];
}

/** Receives and completes everything `queues` hold now. */
async function drainNow(client: QueueClient, queues: readonly string[]): Promise<void> {
  for (const queue of queues)
    for (;;) {
      const received = await client.receiveMessages(queue, 100);
      if (received.length === 0) break;
      await Promise.all(received.map((message) => client.completeMessage(message.receiptHandle)));
    }
}

/**
 * The same contest with consumers that keep up: after each publish (or send) its copies are
 * received and completed, and only the publish's (or send's) own time is counted. The queues stay
 * shallow, as they are where consumers keep up, so the copies of one publish share index pages.
 */
async function publishAndSendDrained(subscriptions: number): Promise<Measurement[]> {
  const paths = Array.from({ length: subscriptions }, (_, index) => subscriptionPath("orders", `s${index}`));
  const timed =
    (
      name: string,
      queues: readonly string[],
      call: (client: QueueClient, message: MessageInput) => Promise<unknown>,
    ) =>
    async (): Promise<Measurement> => {
      const { client, remove } = await topicOf(subscriptions);
      try {
        let ms = 0;
        for (const message of messages) {
          const started = performance.now();
          await call(client, message);
          ms += performance.now() - started;
          await drainNow(client, queues);
        }
        return { name, items: MESSAGES, ms };
      } finally {
        await client.close();
        remove();
      }
    };
  const [publish, send] = await bestOfRounds(RUNS, [
    timed(`publishMessage to a topic of ${subscriptions}, consumers keeping up`, paths, (client, message) =>
      client.publishMessage("orders", message),
    ),
    timed(`sendMessage to a queue, a consumer keeping up`, ["plain"], (client, message) =>
      client.sendMessage("plain", message),
    ),
  ]);
  return [publish!.best, { ...send!.best, note: "floor: one plain send" }];
}

/** Receives and completes every copy a publish made, subscription by subscription, in batches of 10. */
async function drainCopies(subscriptions: number): Promise<Measurement> {
  const { client, remove } = await topicOf(subscriptions);
  try {
    for (let start = 0; start < MESSAGES; start += 100)
      await client.publishMessages("orders", messages.slice(start, start + 100));
    return await measure(
      `drain the copies of ${subscriptions} subscriptions (batches of 10)`,
      copiesOf(subscriptions),
      async () => {
        for (let index = 0; index < subscriptions; index++) {
          const path = subscriptionPath("orders", `s${index}`);
          for (;;) {
            const received = await client.receiveMessages(path, 10);
            if (received.length === 0) break;
            await Promise.all(received.map((message) => client.completeMessage(message.receiptHandle)));
          }
        }
      },
    );
  } finally {
    await client.close();
    remove();
  }
}

/** `npm run bench -- topics`: publishing against plain sends on SQLite, draining the copies, and filter costs. */
export async function run(): Promise<void> {
  const goals: string[] = [];
  for (const subscriptions of FAN_OUTS) {
    const [publish, send] = await publishAndSend(subscriptions);
    const ratio = publish!.ms / send!.ms;
    report(
      `sqlite: one publish to ${subscriptions} subscription(s) (half filtered by SQL, matching half the messages) against one plain send, nothing drained meanwhile`,
      [publish!, send!, await drainCopies(subscriptions)],
      send!.name,
    );
    const [kept, floor] = await publishAndSendDrained(subscriptions);
    const keptRatio = kept!.ms / floor!.ms;
    report(
      `sqlite: the same with consumers keeping up (only the publish's and the send's own time counted)`,
      [kept!, floor!],
      floor!.name,
    );
    const line = `sqlite, ${subscriptions} subscription(s): a publish costs ${keptRatio.toFixed(2)}x one plain send with consumers keeping up, ${ratio.toFixed(2)}x with nothing drained`;
    goals.push(
      subscriptions === 10
        ? `${line} (goal: at most 3x: ${keptRatio <= 3 ? "met" : "not met"} with consumers keeping up, ${ratio <= 3 ? "met" : "not met"} with nothing drained)`
        : line,
    );
  }
  const filters = await filterCosts();
  report("Filter evaluation, per rule per message (goal: under 2 µs)", filters);
  console.log(`\n### Topic goals (issue 29)\n\n${goals.map((goal) => `- ${goal}`).join("\n")}`);
}

import fc from "fast-check";
import { type FilterKind, type SubscriptionFilter, subscriptionPath } from "../../core/topics.js";
import {
  batchSize,
  type ModelGiven,
  queueOptionsArbitrary,
  sendOptions,
  sessionId,
  weighted,
} from "./arbitraries.js";
import {
  AcceptSession,
  CreateQueue,
  FIFO_QUEUE,
  QueueAdminCall,
  Receive,
  Redrive,
  type WorldCommand,
} from "./commands.js";
import { OnSubscription, Publish, TopicCall, type TopicStep } from "./topic-commands.js";
import type { ModelPublish, ModelRule, ModelSubscriptionOptions } from "./topic-model.js";

/** The topic every run of a provider with topics starts with, and the only one with subscriptions. */
export const TOPIC = "ta";
/**
 * Another topic: made and deleted by the runs, and published to while it is missing or has no
 * subscription (every subscription's queues are compared after every step: one topic's are enough).
 */
const OTHER_TOPIC = "tb";
/** Subscriptions made with random queue options, rules and sessions. */
const SUBSCRIPTIONS = ["a", "b"] as const;
/** The subscription of {@link TOPIC} a topic run starts with. */
export const STARTING_SUBSCRIPTION = SUBSCRIPTIONS[0];
/**
 * The one subscription that forwards: two of a topic's subscriptions forwarding to one queue would
 * put two copies of a message, with one body, in it, and bodies are how the runs match messages.
 */
const FORWARDING = "fwd";

/**
 * A few filters of each kind, over the attributes `region` and `amount` and the correlation id
 * that published messages may carry, so that some messages match and some do not (missing
 * attributes included: SQL's unknown, a policy's absent key).
 */
const FILTERS: Readonly<Record<FilterKind, readonly SubscriptionFilter[]>> = {
  correlation: [
    { correlation: { attributes: { region: "eu" } } },
    { correlation: { correlationId: "c1", attributes: { amount: 150 } } },
  ],
  sql: [
    { sql: "region = 'eu' AND amount > 100" },
    { sql: "NOT (region = 'eu') OR sys.correlationId = 'c1'" },
  ],
  policy: [
    { policy: { region: ["eu"] } },
    { policy: { amount: [{ numeric: [">", 100] }], region: [{ "anything-but": "eu" }] } },
  ],
};

/** The options of the subscription a topic run starts with. */
export function startingSubscription(given: ModelGiven): fc.Arbitrary<ModelSubscriptionOptions> {
  return subscriptionOptions(given, STARTING_SUBSCRIPTION, filtersOf(given));
}

/** The filters the provider's rules may use, of the kinds it evaluates. */
function filtersOf(given: ModelGiven): SubscriptionFilter[] {
  return given.filters.flatMap((kind) => FILTERS[kind]);
}

/**
 * The commands a topic run adds to the queue commands, about a quarter of its steps: topic,
 * subscription and rule calls; publishes, one message or a batch; and queue commands on
 * subscriptions' queues (settles and sessions' steps pick their receipts and sessions up as any
 * other's).
 */
export function topicCommandArbitraries(given: ModelGiven): fc.Arbitrary<WorldCommand>[] {
  const topic = fc.constantFrom(TOPIC, TOPIC, TOPIC, OTHER_TOPIC);
  // Mostly to the topic with subscriptions; now and then the other, which may be missing.
  const published = fc.constantFrom(TOPIC, TOPIC, TOPIC, TOPIC, TOPIC, OTHER_TOPIC);
  const publish = publishOptions();
  const publishes = fc.oneof(
    {
      weight: 2,
      arbitrary: fc.tuple(published, publish).map(([name, entry]) => new Publish(name, [entry], false)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          published,
          batchSize.chain((size) => fc.array(publish, { minLength: size, maxLength: size })),
        )
        .map(([name, entries]) => new Publish(name, entries, true)),
    },
  );
  return [
    ...weighted(2, topicCall(given, topic)),
    ...weighted(3, publishes),
    ...weighted(
      3,
      onSubscription(fc.integer({ min: 1, max: 3 }).map((max) => (queue: string) => new Receive(queue, max))),
    ),
    ...(given.sessions
      ? [
          onSubscription(
            fc
              .option(sessionId, { freq: 2 })
              .map((id) => (queue: string) => new AcceptSession(queue, id ?? undefined)),
          ),
        ]
      : []),
    onSubscriptionQueues(),
  ];

  // A send's options, with half the delays dropped (a receive should find copies), and what filters look at.
  function publishOptions(): fc.Arbitrary<Omit<ModelPublish, "body">> {
    const properties = fc.record(
      {
        attributes: fc.record(
          { region: fc.constantFrom("eu", "us"), amount: fc.constantFrom("5", "150") },
          { requiredKeys: [] },
        ),
        correlationId: fc.constantFrom("c1", "c2"),
      },
      { requiredKeys: ["attributes"] },
    );
    return fc
      .tuple(sendOptions(given), properties, fc.boolean())
      .map(([send, filtered, delayed]) => ({ ...send, ...(delayed ? {} : { delayMs: 0 }), ...filtered }));
  }
}

/**
 * A command on a subscription of the run's topic that exists when it runs (its queue, now and
 * then its dead-letter queue): one on a path that may not exist would mostly find none.
 */
function onSubscription(
  make: fc.Arbitrary<(queue: string) => WorldCommand>,
  deadLetters = fc.constantFrom(false, false, false, true),
): fc.Arbitrary<WorldCommand> {
  return fc
    .tuple(fc.nat(2), deadLetters, make)
    .map(([index, deadLetters, command]) => new OnSubscription(TOPIC, index, deadLetters, command));
}

/**
 * Purges and redrives (back to the subscription each came from: a target could get a second copy
 * of a message it has) on subscriptions' queues; and at a path, a queue made and one deleted
 * (`Validation` while the subscription exists: its own calls make and delete it).
 */
function onSubscriptionQueues(): fc.Arbitrary<WorldCommand> {
  const path = fc.constantFrom(...SUBSCRIPTIONS, FORWARDING).map((name) => subscriptionPath(TOPIC, name));
  return fc.oneof(
    onSubscription(fc.constant((queue: string) => new QueueAdminCall("purge", queue))),
    onSubscription(
      fc.constant((queue: string) => new Redrive(queue, undefined)),
      fc.constant(true),
    ),
    path.map((queue) => new QueueAdminCall("deleteQueue", queue)),
    path.map((queue) => new CreateQueue(queue, {})),
  );
}

/** Topic, subscription and rule calls, mostly creating subscriptions (with random options, rules and sessions). */
function topicCall(given: ModelGiven, topic: fc.Arbitrary<string>): fc.Arbitrary<TopicCall> {
  const subscription = fc.constantFrom(...SUBSCRIPTIONS, FORWARDING);
  const filters = filtersOf(given);
  const ofTopic = (step: fc.Arbitrary<TopicStep>) => step.map((made) => new TopicCall(TOPIC, made));
  const createRule: fc.Arbitrary<TopicCall>[] =
    filters.length === 0
      ? []
      : [
          ofTopic(
            fc.record({
              kind: fc.constant("createRule" as const),
              subscription,
              rule: fc.record({ name: fc.constantFrom("r1", "r3"), filter: fc.constantFrom(...filters) }),
            }),
          ),
        ];
  return fc.oneof(
    {
      weight: 4,
      arbitrary: ofTopic(
        subscription.chain((name) =>
          subscriptionOptions(given, name, filters).map(
            (options): TopicStep => ({ kind: "createSubscription", subscription: name, options }),
          ),
        ),
      ),
    },
    fc
      .tuple(
        topic,
        given.timeToLive
          ? fc.record({ defaultTimeToLiveMs: fc.constantFrom(2_000, null) }, { requiredKeys: [] })
          : fc.constant({}),
      )
      .map(([name, options]) => new TopicCall(name, { kind: "createTopic", options })),
    topic.map((name) => new TopicCall(name, { kind: "deleteTopic" })),
    ofTopic(fc.record({ kind: fc.constant("deleteSubscription" as const), subscription })),
    ...createRule,
    ofTopic(
      fc.record({
        kind: fc.constant("deleteRule" as const),
        subscription,
        rule: fc.constantFrom("$Default", "r1", "r2"),
      }),
    ),
  );
}

/**
 * A subscription's options: the forwarding one's queue and rules; the others' queue options as
 * the runs vary a queue's (but for dead letters), a session now and then where sessions are
 * native, and rules.
 */
function subscriptionOptions(
  given: ModelGiven,
  name: string,
  filters: readonly SubscriptionFilter[],
): fc.Arbitrary<ModelSubscriptionOptions> {
  // None given ($Default, matching every message), or one or two filters (deleting rules leaves none).
  const rules: fc.Arbitrary<ModelRule[] | null> = fc.option(
    fc
      .subarray([...filters], { minLength: Math.min(1, filters.length), maxLength: 2 })
      .map((chosen) => chosen.map((filter, index) => ({ name: `r${index + 1}`, filter }))),
    { freq: 3 },
  );
  const ruled = (options: ModelSubscriptionOptions, chosen: ModelRule[] | null) =>
    chosen === null ? options : { ...options, rules: chosen };
  if (name === FORWARDING)
    return (
      fc
        .tuple(fc.constantFrom("qa", "qb", FIFO_QUEUE), rules)
        // Its own queue holds nothing, so it needs no dead-letter queue to be compared after every step.
        .map(([forwardTo, chosen]) =>
          ruled({ forwardTo, ...(given.subqueues ? {} : { deadLetterQueue: null }) }, chosen),
        )
    );
  // Most keep their dead letters (in `<path>/$deadletterqueue`, read and redriven by the runs),
  // where a queue's options as the runs vary them mostly have none.
  const deadLetters = given.subqueues ? fc.constant(true) : fc.constantFrom(true, true, false);
  return fc
    .tuple(queueOptionsArbitrary(given), rules, fc.constantFrom(false, false, given.sessions), deadLetters)
    .map(([{ deadLetterQueue, ...queue }, chosen, requiresSession, kept]) =>
      ruled(
        {
          ...queue,
          ...(kept ? {} : { deadLetterQueue: null }),
          ...(requiresSession ? { requiresSession } : {}),
        },
        chosen,
      ),
    );
}

import fc from "fast-check";
import type { Capabilities } from "../../core/capabilities.js";
import type { FilterKind } from "../../core/topics.js";
import {
  AcceptSession,
  Advance,
  type AdvanceBy,
  CreateQueue,
  FIFO_QUEUE,
  QUEUE_NAMES,
  QueueAdminCall,
  Receive,
  Redrive,
  Send,
  SendBatch,
  type SessionStep,
  Settle,
  type Settlement,
  UseSession,
  type WorldCommand,
} from "./commands.js";
import {
  DEAD_LETTER_SUBQUEUE,
  type ModelOptions,
  type ModelQueueOptions,
  type ModelSend,
} from "./queue-model.js";

/** What a provider is given, by its capabilities (as the contract suite skips by them). */
export interface ModelGiven {
  /** Sessions of its own: accept by id, hold, renew, close (`capabilities.sessions` is `"native"`). */
  readonly sessions: boolean;
  readonly sessionState: boolean;
  /** Per-message and per-queue time to live. */
  readonly timeToLive: boolean;
  /** A deduplication window set per queue (SQS's is fixed). */
  readonly deduplicationWindow: boolean;
  /** A default delay set per queue (Service Bus has none). */
  readonly defaultDelays: boolean;
  /** Dead letters in each queue's own sub-queue, read by its name, rather than in a queue it names. */
  readonly subqueues: boolean;
  /** Whether runs may move time: delays, short locks and windows, advancing the clock (not on a broker's own clock). */
  readonly timed: boolean;
  /** Topics, subscriptions and publishing (`capabilities.topics`). */
  readonly topics: boolean;
  /** The kinds of filter the provider evaluates, which its subscriptions' rules are made of. */
  readonly filters: readonly FilterKind[];
}

/** What a provider with these capabilities and semantics is given. */
export function givenBy(capabilities: Capabilities, semantics: ModelOptions = {}): ModelGiven {
  const timed = semantics.time !== "broker";
  return {
    sessions: capabilities.sessions === "native",
    sessionState: capabilities.sessionState,
    timeToLive: capabilities.timeToLive && timed,
    deduplicationWindow: semantics.deduplicationWindowMs === undefined,
    defaultDelays: semantics.defaultDelays !== false,
    subqueues: semantics.deadLetterQueues === "subqueue",
    timed,
    topics: capabilities.topics,
    filters: capabilities.filters,
  };
}

/** The dead-letter queue of the FIFO queue (`.fifo` kept last). */
const FIFO_DEAD_LETTERS = "qf-dlq.fifo";
/** The sessions (message groups) messages name. */
const SESSION_IDS = ["s1", "s2", "s3"] as const;

/** The queue names the commands of a run pick from, by what they do with the queue. */
interface QueueNames {
  /** Any queue: created, sent to, received from. */
  readonly queue: fc.Arbitrary<string>;
  /** What receives and purges read. */
  readonly readable: fc.Arbitrary<string>;
  /** What a redrive is asked to move from (queues that are no dead-letter queue too). */
  readonly redrivable: fc.Arbitrary<string>;
  /** What is deleted: rarely one of the two main queues, whose deletion ends most of a run's interest in it. */
  readonly deletable: fc.Arbitrary<string>;
  /** Where sessions are accepted. */
  readonly withSessions: fc.Arbitrary<string>;
}

/**
 * The names: the two queues every run starts with come up most, the others keep creation and
 * absence in play. Dead-letter queues are used directly, as any queue, where they are queues of
 * their own; sub-queues are only read (and their plain names are queues of no special standing).
 */
function queueNames(given: ModelGiven): QueueNames {
  const main = ["qa", "qa", "qa", FIFO_QUEUE, FIFO_QUEUE, FIFO_QUEUE, "qb"] as const;
  if (!given.subqueues) {
    const queue = fc.constantFrom(...main, "qa-dlq", FIFO_DEAD_LETTERS);
    return {
      queue,
      readable: queue,
      redrivable: fc.constantFrom(...QUEUE_NAMES),
      deletable: fc.constantFrom("qb", "qa-dlq", FIFO_DEAD_LETTERS, "qa", FIFO_QUEUE),
      withSessions: fc.constantFrom(FIFO_QUEUE, FIFO_QUEUE, FIFO_QUEUE, FIFO_DEAD_LETTERS, "qa"),
    };
  }
  const queue = fc.constantFrom(...main);
  const subqueues = [`qa${DEAD_LETTER_SUBQUEUE}`, `${FIFO_QUEUE}${DEAD_LETTER_SUBQUEUE}`] as const;
  return {
    queue,
    readable: fc.oneof(
      { weight: 4, arbitrary: queue },
      { weight: 1, arbitrary: fc.constantFrom(...subqueues) },
    ),
    redrivable: fc.constantFrom("qa", "qb", FIFO_QUEUE, ...subqueues, ...subqueues),
    deletable: fc.constantFrom("qb", "qb", "qa", FIFO_QUEUE),
    withSessions: fc.constantFrom(FIFO_QUEUE, FIFO_QUEUE, FIFO_QUEUE, "qa"),
  };
}
/** A session id of the few messages name. */
export const sessionId = fc.constantFrom(...SESSION_IDS);
const offset = fc.constantFrom(-1, 0, 1);

/** Queue options as the runs vary them: short locks, few deliveries, with and without dead-letter queue, delays, time to live and deduplication. */
export function queueOptionsArbitrary(given: ModelGiven): fc.Arbitrary<ModelQueueOptions> {
  return fc.record(
    {
      lockDurationMs: given.timed ? fc.constantFrom(1_000, 5_000, 30_000) : fc.constant(300_000),
      maxDeliveryCount: fc.constantFrom<number | null>(1, 2, 3, null),
      ...(given.subqueues ? {} : { deadLetterQueue: fc.constant(null) }),
      defaultDelayMs: given.defaultDelays && given.timed ? fc.constantFrom(0, 1_000) : fc.constant(0),
      ...(given.timeToLive
        ? { defaultTimeToLiveMs: fc.constantFrom<number | null>(2_000, 10_000, null) }
        : {}),
      ...(given.deduplicationWindow
        ? {
            deduplicationWindowMs: given.timed
              ? fc.constantFrom(0, 2_000, 300_000)
              : fc.constantFrom(0, 300_000),
          }
        : {}),
    },
    { requiredKeys: [] },
  );
}

/** A message's options: delays at the edges, time to live where the provider has it, deduplication ids and sessions. */
export function sendOptions(given: ModelGiven): fc.Arbitrary<Omit<ModelSend, "body">> {
  return fc.record(
    {
      delayMs: given.timed ? fc.constantFrom(0, 1, 999, 1_000, 2_500) : fc.constant(0),
      ...(given.timeToLive ? { timeToLiveMs: fc.constantFrom(1, 1_000, 3_000, 60_000) } : {}),
      deduplicationId: fc.constantFrom("d1", "d2"),
      sessionId,
    },
    { requiredKeys: [] },
  );
}

/** Batch sizes at the edges: one, the engine's limit of 10, and past it. */
export const batchSize = fc.constantFrom(1, 2, 10, 11);

const sessionStep: fc.Arbitrary<SessionStep> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("receive" as const), max: fc.integer({ min: 1, max: 3 }) }),
  },
  fc.constant<SessionStep>({ kind: "renew" }),
  fc.constant<SessionStep>({ kind: "getState" }),
  fc.record({
    kind: fc.constant("setState" as const),
    state: fc.constantFrom<string | null>("x", "y", null),
  }),
  fc.constant<SessionStep>({ kind: "close" }),
);

/** Settlements, abandons with a delay only where runs may move time. */
const settlement = (given: ModelGiven): fc.Arbitrary<Settlement> =>
  fc.oneof(
    fc.constant<Settlement>({ kind: "complete" }),
    fc.record({
      kind: fc.constant("abandon" as const),
      delayMs: given.timed ? fc.constantFrom(undefined, 0, 1_000, 2_500) : fc.constantFrom(undefined, 0),
    }),
    fc.record({
      kind: fc.constant("deadLetter" as const),
      reason: fc.constantFrom("bad", "poison"),
      description: fc.constantFrom(undefined, "why"),
    }),
    fc.constant<Settlement>({ kind: "renew" }),
  );

const advanceBy: fc.Arbitrary<AdvanceBy> = fc.oneof(
  fc.record({
    kind: fc.constant("fixed" as const),
    ms: fc.constantFrom(0, 1, 999, 1_000, 1_001, 5_000, 31_000),
  }),
  fc.record({ kind: fc.constant("lockEnd" as const), receiptIndex: fc.nat(5), offset }),
  fc.record({ kind: fc.constant("nextDue" as const), offset }),
);

/** `weight` copies of an arbitrary: fast-check picks among the commands evenly. */
export function weighted(
  weight: number,
  arbitrary: fc.Arbitrary<WorldCommand>,
): fc.Arbitrary<WorldCommand>[] {
  return Array.from({ length: weight }, () => arbitrary);
}

/** Every command a provider is given, weighted towards sends, receives, settles, sessions and time. */
export function commandArbitraries(given: ModelGiven): fc.Arbitrary<WorldCommand>[] {
  const send = sendOptions(given);
  const names = queueNames(given);
  const queueName = names.queue;
  return [
    fc
      .tuple(queueName, queueOptionsArbitrary(given))
      .map(([name, options]) => new CreateQueue(name, options)),
    ...weighted(
      4,
      fc.tuple(queueName, send).map(([queue, options]) => new Send(queue, options)),
    ),
    fc
      .tuple(
        queueName,
        batchSize.chain((size) => fc.array(send, { minLength: size, maxLength: size })),
      )
      .map(([queue, entries]) => new SendBatch(queue, entries)),
    ...weighted(
      3,
      fc.tuple(names.readable, fc.integer({ min: 1, max: 3 })).map(([queue, max]) => new Receive(queue, max)),
    ),
    ...weighted(
      5,
      fc
        .tuple(fc.nat(5), settlement(given), fc.boolean())
        .map(([index, what, viaSecond]) => new Settle(index, what, viaSecond)),
    ),
    names.readable.map((queue) => new QueueAdminCall("purge", queue)),
    names.deletable.map((queue) => new QueueAdminCall("deleteQueue", queue)),
    fc
      .tuple(names.redrivable, fc.option(queueName, { freq: 3 }))
      .map(([queue, target]) => new Redrive(queue, target ?? undefined)),
    ...(given.sessions ? sessionCommands(given, names) : []),
    ...(given.timed
      ? weighted(
          3,
          advanceBy.map((by) => new Advance(by)),
        )
      : []),
  ];
}

/** Accepting sessions and using them, for a provider whose sessions are its own. */
function sessionCommands(given: ModelGiven, names: QueueNames): fc.Arbitrary<WorldCommand>[] {
  const step = given.sessionState
    ? sessionStep
    : sessionStep.filter((step) => step.kind !== "getState" && step.kind !== "setState");
  return [
    ...weighted(
      2,
      fc
        .tuple(names.withSessions, fc.option(sessionId, { freq: 2 }))
        .map(([queue, id]) => new AcceptSession(queue, id ?? undefined)),
    ),
    ...weighted(
      4,
      fc.tuple(fc.nat(3), step).map(([index, what]) => new UseSession(index, what)),
    ),
  ];
}

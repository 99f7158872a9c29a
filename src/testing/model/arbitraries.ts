import fc from "fast-check";
import type { Capabilities } from "../../core/capabilities.js";
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
import type { ModelQueueOptions, ModelSend } from "./queue-model.js";

/** What a provider is given, by its capabilities (as the contract suite skips by them). */
export interface ModelGiven {
  /** Sessions of its own: accept by id, hold, renew, close (`capabilities.sessions` is `"native"`). */
  readonly sessions: boolean;
  readonly sessionState: boolean;
  /** Per-message and per-queue time to live. */
  readonly timeToLive: boolean;
  /** A deduplication window set per queue (SQS's is fixed). */
  readonly deduplicationWindow: boolean;
}

/** What a provider with these capabilities is given. */
export function givenBy(capabilities: Capabilities, deduplicationWindow = true): ModelGiven {
  return {
    sessions: capabilities.sessions === "native",
    sessionState: capabilities.sessionState,
    timeToLive: capabilities.timeToLive,
    deduplicationWindow,
  };
}

/** The dead-letter queue of the FIFO queue (`.fifo` kept last). */
const FIFO_DEAD_LETTERS = "qf-dlq.fifo";
/** The sessions (message groups) messages name. */
const SESSION_IDS = ["s1", "s2", "s3"] as const;

// The two queues every run starts with come up most; the others keep creation and absence in play.
const queueName = fc.constantFrom(
  "qa",
  "qa",
  "qa",
  FIFO_QUEUE,
  FIFO_QUEUE,
  FIFO_QUEUE,
  "qb",
  "qa-dlq",
  FIFO_DEAD_LETTERS,
);
const sessionId = fc.constantFrom(...SESSION_IDS);
const offset = fc.constantFrom(-1, 0, 1);

/** Queue options as the runs vary them: short locks, few deliveries, with and without dead-letter queue, delays, time to live and deduplication. */
export function queueOptionsArbitrary(given: ModelGiven): fc.Arbitrary<ModelQueueOptions> {
  return fc.record(
    {
      lockDurationMs: fc.constantFrom(1_000, 5_000, 30_000),
      maxDeliveryCount: fc.constantFrom<number | null>(1, 2, 3, null),
      deadLetterQueue: fc.constant(null),
      defaultDelayMs: fc.constantFrom(0, 1_000),
      ...(given.timeToLive
        ? { defaultTimeToLiveMs: fc.constantFrom<number | null>(2_000, 10_000, null) }
        : {}),
      ...(given.deduplicationWindow ? { deduplicationWindowMs: fc.constantFrom(0, 2_000, 300_000) } : {}),
    },
    { requiredKeys: [] },
  );
}

/** A message's options: delays at the edges, time to live where the provider has it, deduplication ids and sessions. */
function sendOptions(given: ModelGiven): fc.Arbitrary<Omit<ModelSend, "body">> {
  return fc.record(
    {
      delayMs: fc.constantFrom(0, 1, 999, 1_000, 2_500),
      ...(given.timeToLive ? { timeToLiveMs: fc.constantFrom(1, 1_000, 3_000, 60_000) } : {}),
      deduplicationId: fc.constantFrom("d1", "d2"),
      sessionId,
    },
    { requiredKeys: [] },
  );
}

/** Batch sizes at the edges: one, the engine's limit of 10, and past it. */
const batchSize = fc.constantFrom(1, 2, 10, 11);

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

const settlement: fc.Arbitrary<Settlement> = fc.oneof(
  fc.constant<Settlement>({ kind: "complete" }),
  fc.record({ kind: fc.constant("abandon" as const), delayMs: fc.constantFrom(undefined, 0, 1_000, 2_500) }),
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
function weighted(weight: number, arbitrary: fc.Arbitrary<WorldCommand>): fc.Arbitrary<WorldCommand>[] {
  return Array.from({ length: weight }, () => arbitrary);
}

/** Every command a provider is given, weighted towards sends, receives, settles, sessions and time. */
export function commandArbitraries(given: ModelGiven): fc.Arbitrary<WorldCommand>[] {
  const send = sendOptions(given);
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
      fc.tuple(queueName, fc.integer({ min: 1, max: 3 })).map(([queue, max]) => new Receive(queue, max)),
    ),
    ...weighted(
      5,
      fc
        .tuple(fc.nat(5), settlement, fc.boolean())
        .map(([index, what, viaSecond]) => new Settle(index, what, viaSecond)),
    ),
    queueName.map((queue) => new QueueAdminCall("purge", queue)),
    // Deleting one of the two main queues ends most of a run's interest in it, so it is rarer.
    fc
      .constantFrom("qb", "qa-dlq", FIFO_DEAD_LETTERS, "qa", FIFO_QUEUE)
      .map((queue) => new QueueAdminCall("deleteQueue", queue)),
    fc
      .tuple(fc.constantFrom(...QUEUE_NAMES), fc.option(queueName, { freq: 3 }))
      .map(([queue, target]) => new Redrive(queue, target ?? undefined)),
    ...(given.sessions ? sessionCommands(given) : []),
    ...weighted(
      3,
      advanceBy.map((by) => new Advance(by)),
    ),
  ];
}

/** Accepting sessions and using them, for a provider whose sessions are its own. */
function sessionCommands(given: ModelGiven): fc.Arbitrary<WorldCommand>[] {
  const step = given.sessionState
    ? sessionStep
    : sessionStep.filter((step) => step.kind !== "getState" && step.kind !== "setState");
  return [
    ...weighted(
      2,
      fc
        .tuple(
          fc.constantFrom(FIFO_QUEUE, FIFO_QUEUE, FIFO_QUEUE, FIFO_DEAD_LETTERS, "qa"),
          fc.option(sessionId, { freq: 2 }),
        )
        .map(([queue, id]) => new AcceptSession(queue, id ?? undefined)),
    ),
    ...weighted(
      4,
      fc.tuple(fc.nat(3), step).map(([index, what]) => new UseSession(index, what)),
    ),
  ];
}

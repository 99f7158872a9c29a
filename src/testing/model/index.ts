import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, test } from "vitest";
import { VirtualClock } from "../../core/clock.js";
import type { QueueClient } from "../../core/queue-client.js";
import { commandArbitraries, givenBy, type ModelGiven, queueOptionsArbitrary } from "./arbitraries.js";
import { CreateQueue, FIFO_QUEUE, type WorldCommand } from "./commands.js";
import type { ModelOptions, ModelQueueOptions } from "./queue-model.js";
import {
  STARTING_SUBSCRIPTION,
  startingSubscription,
  TOPIC,
  topicCommandArbitraries,
} from "./topic-arbitraries.js";
import { TopicCall } from "./topic-commands.js";
import type { ModelSubscriptionOptions } from "./topic-model.js";
import { World } from "./world.js";

/** What `makeClient` is told for each client a run asks for. */
export interface ModelRunContext {
  /** The run's virtual clock: the provider must keep time by it. */
  readonly clock: VirtualClock;
  /** Unique per run: clients made with the same namespace must share their queues. */
  readonly namespace: string;
}

/** Makes a client of the provider under test that does not create queues on first use. */
export type MakeModelClient = (context: ModelRunContext) => Promise<QueueClient>;

/** How many runs, how long, from which seed, and where the provider's semantics differ. */
export interface ModelCheckOptions {
  /** Where the provider's semantics depart from the engine's defaults (see {@link ModelOptions}). */
  model?: ModelOptions;
  /** The seed of the fixed run (default 20_260_101). */
  seed?: number;
  /** Runs per test (default 100). */
  numRuns?: number;
  /** The most commands in one run (default 40). */
  maxCommands?: number;
  /** The vitest timeout of each test (default 30 000 ms). */
  timeoutMs?: number;
}

/**
 * Declares the model-based tests of one provider: random sequences of commands on standard and
 * FIFO queues and their sessions (and topics, where the provider has them), each done on the
 * reference model and on the provider, compared
 * after every step. One
 * test runs a fixed seed (reproducible in CI); another a new seed each time, which fast-check
 * prints with the shrunk sequence when it fails.
 */
export function checkAgainstModel(
  name: string,
  makeClient: MakeModelClient,
  options: ModelCheckOptions = {},
): void {
  // A campaign (`npm run test:model -- --runs N`) sets MODEL_RUNS: that many runs, and no timeout.
  const campaign = campaignRuns();
  const numRuns = campaign ?? options.numRuns ?? 100;
  const timeoutMs = campaign === undefined ? (options.timeoutMs ?? 30_000) : 0;
  describe(`reference model: ${name}`, () => {
    test(
      "queues and sessions agree with the model (fixed seed)",
      () => assertAgainstModel(makeClient, { ...options, numRuns, seed: options.seed ?? 20_260_101 }),
      timeoutMs,
    );
    test(
      "queues and sessions agree with the model (random seed)",
      () => {
        const seed = randomBytes(4).readInt32LE();
        // Printed first: a run that hangs ends in vitest's timeout, which fast-check never reports.
        console.log(`reference model: ${name}: random seed ${seed}`);
        return assertAgainstModel(makeClient, { ...options, numRuns, seed });
      },
      timeoutMs,
    );
  });
}

/** The runs per test a campaign asks for in MODEL_RUNS, if it does. */
function campaignRuns(): number | undefined {
  const runs = Number(process.env.MODEL_RUNS);
  return Number.isInteger(runs) && runs > 0 ? runs : undefined;
}

/**
 * Runs the property: on failure fast-check's error names the seed, the path and the shrunk
 * commands. What the runs contain follows the provider's capabilities, read from a first client.
 */
export async function assertAgainstModel(
  makeClient: MakeModelClient,
  options: ModelCheckOptions = {},
): Promise<void> {
  const probe = await makeClient({ clock: new VirtualClock(), namespace: newNamespace() });
  const given = givenBy(probe.capabilities, options.model);
  await probe.close();
  const queueOptions = queueOptionsArbitrary(given);
  await fc.assert(
    fc.asyncProperty(
      queueOptions,
      queueOptions,
      runPlans(given, options.maxCommands ?? 40),
      (standard, fifo, plan) =>
        inWorld(makeClient, options.model, async (world) => {
          await start({ standard, fifo, subscription: plan.subscription }, (command) =>
            new Compared(command).run(world, world),
          );
          await fc.asyncModelRun(() => ({ model: world, real: world }), plan.steps);
        }),
    ),
    { numRuns: options.numRuns ?? 100, seed: options.seed },
  );
}

/** A run's steps, and the options of the subscription a topic run starts with (none in a run of queues). */
interface RunPlan {
  readonly subscription: ModelSubscriptionOptions | undefined;
  readonly steps: Iterable<WorldCommand>;
}

/**
 * The runs: of queues alone, and where the provider has topics a topic run in seven, which starts
 * with a topic and a subscription and adds topic commands to the queue commands. Every step of a
 * run with a subscription compares its queues too, so topic runs are kept to a share that costs
 * little more time, while the other runs stay what they were before topics came.
 */
function runPlans(given: ModelGiven, maxCommands: number): fc.Arbitrary<RunPlan> {
  const steps = (arbitraries: fc.Arbitrary<WorldCommand>[]) =>
    fc.commands(
      arbitraries.map((arbitrary) => arbitrary.map((command): WorldCommand => new Compared(command))),
      { maxCommands, size: "max" },
    );
  const queues = commandArbitraries(given);
  const queueRuns = steps(queues).map((commands): RunPlan => ({ subscription: undefined, steps: commands }));
  if (!given.topics) return queueRuns;
  return fc.oneof(
    { weight: 6, arbitrary: queueRuns },
    {
      weight: 1,
      arbitrary: fc
        .tuple(startingSubscription(given), steps([...queues, ...topicCommandArbitraries(given)]))
        .map(([subscription, commands]): RunPlan => ({ subscription, steps: commands })),
    },
  );
}

/** How a replay runs. */
export interface ReplayOptions {
  /** Where the provider's semantics depart from the engine's defaults. */
  model?: ModelOptions;
  /** The options of the FIFO queue `qf.fifo` the run starts with (default: none). */
  fifo?: ModelQueueOptions;
  /** Compare every queue's state after each step, as the runs do (default: only each command's answer). */
  compareState?: boolean;
  /** A topic run's: the options of subscription `a` of topic `ta`, made after the queues (default: no topic). */
  subscription?: ModelSubscriptionOptions;
}

/**
 * Runs one fixed sequence against a provider, starting as the runs do (`qa` with `first`, and
 * `qf.fifo`): how a shrunk counterexample is kept as a regression test. Without `compareState`
 * nothing else is read between the steps, so a replay can show a lag the comparison would hide.
 */
export async function replayAgainstModel(
  makeClient: MakeModelClient,
  first: ModelQueueOptions,
  steps: readonly WorldCommand[],
  options: ReplayOptions = {},
): Promise<void> {
  await inWorld(makeClient, options.model, async (world) => {
    const compare = (command: WorldCommand) =>
      options.compareState ? new Compared(command).run(world, world) : command.run(world, world);
    await start({ standard: first, fifo: options.fifo ?? {}, subscription: options.subscription }, compare);
    for (const step of steps) await compare(step);
  });
}

/** The options of what a run starts with. */
interface RunStart {
  readonly standard: ModelQueueOptions;
  readonly fifo: ModelQueueOptions;
  readonly subscription: ModelSubscriptionOptions | undefined;
}

/**
 * How every run starts: with a standard and a FIFO queue, so few runs are spent on QueueNotFound
 * alone; a topic run also with topic `ta` and its subscription `a`.
 */
async function start(setup: RunStart, run: (command: WorldCommand) => Promise<void>): Promise<void> {
  await run(new CreateQueue("qa", setup.standard));
  await run(new CreateQueue(FIFO_QUEUE, setup.fifo));
  if (setup.subscription === undefined) return;
  await run(new TopicCall(TOPIC, { kind: "createTopic", options: {} }));
  await run(
    new TopicCall(TOPIC, {
      kind: "createSubscription",
      subscription: STARTING_SUBSCRIPTION,
      options: setup.subscription,
    }),
  );
}

/** Runs `use` in a fresh world: two clients of the provider sharing a namespace and a virtual clock, closed after. */
async function inWorld(
  makeClient: MakeModelClient,
  model: ModelOptions | undefined,
  use: (world: World) => Promise<void>,
): Promise<void> {
  const clock = new VirtualClock();
  const namespace = newNamespace();
  const client = await makeClient({ clock, namespace });
  const second = await makeClient({ clock, namespace });
  try {
    await use(new World(clock, client, second, model));
  } finally {
    await Promise.allSettled([client.close(), second.close()]);
  }
}

/** A name no other run uses. */
function newNamespace(): string {
  return `m${randomBytes(4).toString("hex")}`;
}

/** MODEL_TRACE=1 prints each step before it runs: how a run that hangs shows where. */
const tracing = process.env.MODEL_TRACE === "1";

/** A command followed by the comparison of every queue's state. */
class Compared implements WorldCommand {
  constructor(readonly command: WorldCommand) {}
  /** As the command says. */
  check(world: Readonly<World>): boolean {
    return this.command.check(world);
  }
  /** Runs the command, then compares the queues. */
  async run(model: World, world: World): Promise<void> {
    if (tracing) console.log(`model step: ${this.command}`);
    await this.command.run(model, world);
    await world.compareState();
  }
  /** The command's own description. */
  toString(): string {
    return String(this.command);
  }
}

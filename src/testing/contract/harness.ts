import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import type { QueueOptions } from "../../core/admin.js";
import type { Capabilities } from "../../core/capabilities.js";
import { VirtualClock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { QueueClient } from "../../core/queue-client.js";

/** What the suite tells `makeClient` for each client it asks for. */
export interface ContractContext {
  /** The virtual clock of this test, when the suite runs on virtual time; give it to the provider. */
  readonly clock: VirtualClock | undefined;
  /** Unique per test: clients made with the same namespace must share their queues. */
  readonly namespace: string;
  /**
   * Whether the client creates a queue (or topic) on first use: false for every client but the
   * one a case about that asks for (it is made in a namespace of its own).
   */
  readonly createQueues: boolean;
}

/** Makes a client of the provider under test. */
export type MakeClient = (context: ContractContext) => Promise<QueueClient>;

/** How the suite drives a provider. */
export interface ContractOptions {
  /** The provider takes the suite's virtual clock: waits advance it instead of sleeping (default false). */
  virtualTime?: boolean;
  /** Lock duration of the queues the suite creates (default 30 000 on virtual time, 2 000 otherwise). */
  lockDurationMs?: number;
  /** The session lock duration the provider uses (default 60 000 on virtual time, 5 000 otherwise). */
  sessionLockDurationMs?: number;
  /** The shortest delay the provider honours exactly (default 1 000: SQS counts delays in seconds). */
  delayUnitMs?: number;
  /** How many messages C60's receivers drain (default 2 000; fewer for a server that is slow by design). */
  loadMessages?: number;
  /**
   * Cases the server under test is known to fail for reasons of its own, by id, with the reason:
   * skipped and listed with it at the end, never passed in silence (for an emulator that differs
   * from the service it emulates).
   */
  knownDifferences?: Readonly<Record<string, string>>;
}

/** The options with their defaults filled in. */
export interface ResolvedContractOptions {
  readonly virtualTime: boolean;
  readonly lockDurationMs: number;
  readonly sessionLockDurationMs: number;
  readonly delayUnitMs: number;
  readonly loadMessages: number;
}

/** Fills in the defaults of the contract options. */
export function resolveContractOptions(options: ContractOptions): ResolvedContractOptions {
  const virtualTime = options.virtualTime ?? false;
  return {
    virtualTime,
    lockDurationMs: options.lockDurationMs ?? (virtualTime ? 30_000 : 2_000),
    sessionLockDurationMs: options.sessionLockDurationMs ?? (virtualTime ? 60_000 : 5_000),
    delayUnitMs: options.delayUnitMs ?? 1_000,
    loadMessages: options.loadMessages ?? 2_000,
  };
}

/** Fails unless `call` rejects with a QueueError of `code`; resolves that error. */
export async function expectCode(call: Promise<unknown>, code: string): Promise<QueueError> {
  const error = await rejection(call);
  expect(error).toBeInstanceOf(QueueError);
  expect((error as QueueError).code).toBe(code);
  return error as QueueError;
}

/** One test's clients, queues and time. */
export class Harness {
  readonly clock: VirtualClock | undefined;
  readonly options: ResolvedContractOptions;
  readonly #makeClient: MakeClient;
  readonly #namespace = `t${randomBytes(4).toString("hex")}`;
  readonly #clients: QueueClient[] = [];
  #queues = 0;

  constructor(makeClient: MakeClient, options: ResolvedContractOptions) {
    this.#makeClient = makeClient;
    this.options = options;
    this.clock = options.virtualTime ? new VirtualClock() : undefined;
  }

  /** A new client of the provider under test, closed when the test ends. */
  async client(): Promise<QueueClient> {
    const client = await this.#makeClient({
      clock: this.clock,
      namespace: this.#namespace,
      createQueues: false,
    });
    this.#clients.push(client);
    return client;
  }

  /**
   * A new client that creates a queue or topic on first use, closed when the test ends. It has a
   * namespace of its own: a provider whose clients of one namespace share an engine keeps the
   * first client's setting.
   */
  async clientCreatingQueues(): Promise<QueueClient> {
    const client = await this.#makeClient({
      clock: this.clock,
      namespace: `${this.#namespace}-c`,
      createQueues: true,
    });
    this.#clients.push(client);
    return client;
  }

  /** The capabilities of the provider under test. */
  async capabilities(): Promise<Capabilities> {
    return (this.#clients[0] ?? (await this.client())).capabilities;
  }

  /** Creates a uniquely named queue (a session queue ends in `.fifo`) with the suite's lock duration. */
  async queue(client: QueueClient, options: QueueOptions = {}): Promise<string> {
    const name = this.queueName(options.requiresSession === true || options.fifo === true);
    await client.admin.createQueue(name, { lockDurationMs: this.options.lockDurationMs, ...options });
    return name;
  }

  /** A fresh queue name of this test (a session queue's ends in `.fifo`), not created. */
  queueName(sessions = false): string {
    return `${this.#namespace}-q${++this.#queues}${sessions ? ".fifo" : ""}`;
  }

  /**
   * Lets time pass in steps of `stepMs` until `condition` holds (virtual time advances; real
   * time sleeps); fails naming `what` after `maxSteps`.
   */
  async until(condition: () => boolean, stepMs: number, what: string, maxSteps = 400): Promise<void> {
    for (let step = 0; !condition(); step++) {
      if (step >= maxSteps)
        throw new Error(`${what} did not happen within ${maxSteps} steps of ${stepMs} ms`);
      // On virtual time, work under way (a database round trip) gets real time to finish before
      // the clock moves on, as it would have at this instant.
      if (this.clock !== undefined && (await settledWithin(condition, QUIET_MS))) return;
      await this.advance(stepMs);
    }
  }

  /** Lets `ms` pass: advances the virtual clock, or sleeps. */
  async advance(ms: number): Promise<void> {
    if (this.clock) await this.clock.advance(ms);
    else await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** The current time of the test (virtual or real), in ms. */
  now(): number {
    return this.clock ? this.clock.now() : Date.now();
  }

  /** Closes every client the test made. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#clients.map((client) => client.close()));
  }
}

/**
 * How long, in real time, `until` lets work under way finish before each step of virtual time:
 * a PostgreSQL round trip under a full CI run took over 20 ms, and the clock moved a step early.
 */
const QUIET_MS = 100;

/** Polls `condition` for up to `ms` of real time; true as soon as it holds. */
async function settledWithin(condition: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return condition();
}

/** True when `promise` has not settled after pending callbacks ran. */
export async function isPending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  return !settled;
}

/** The error `promise` rejects with (fails when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** Bytes that are not valid UTF-8, for round-trip checks. */
export const NON_UTF8_BYTES = Uint8Array.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0xc3, 0x28, 0xed, 0xa0, 0x80]);

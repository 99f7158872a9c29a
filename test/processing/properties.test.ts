import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../src/core/clock.js";
import {
  type CompleteProcessing,
  type MessageHandle,
  MessageQueue,
  MessageQueueResult,
  RetryableError,
} from "../../src/processing/index.js";
import { flush } from "./harness.js";

type Settled = "Success" | "Error" | "RetryableError";

type Command =
  | { readonly kind: "add" }
  | { readonly kind: "complete"; readonly pick: number; readonly result: Settled }
  | { readonly kind: "removeAll" }
  | { readonly kind: "advance"; readonly ms: number }
  | { readonly kind: "tick" };

// Retryable errors weigh double: they make the stale attempts that late completions must not reach.
const settledResult = fc.constantFrom<Settled>("Success", "Error", "RetryableError", "RetryableError");

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Command>({ kind: "add" }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("complete" as const), pick: fc.nat(), result: settledResult }),
  },
  { weight: 1, arbitrary: fc.constant<Command>({ kind: "removeAll" }) },
  // Steps on a coarse grid, so that messages often sit exactly at a limit.
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.constantFrom(0, 50, 100, 150) }),
  },
  { weight: 3, arbitrary: fc.constant<Command>({ kind: "tick" }) },
);

const settings = fc.record({
  maxEnqueuedTimeMs: fc.constantFrom(0, 100, 200, 300, 450),
  maxProcessingTimeMs: fc.constantFrom(0, 50, 100, 250),
  maxRetryCount: fc.integer({ min: 0, max: 3 }),
});

/** What the model expects of one message. */
interface ModelMessage {
  readonly id: number;
  readonly enqueuedAt: number;
  status: "Pending" | "InProgress" | "Completed";
  attempts: number;
  startedAt: number;
}

/** A straightforward, array-based model of the seed's rules, to compare the queue against. */
class Model {
  readonly messages: ModelMessage[] = [];
  pending: ModelMessage[] = [];
  inProgress: ModelMessage[] = [];
  readonly completions: Array<[number, MessageQueueResult]> = [];

  constructor(
    readonly limits: { maxEnqueuedTimeMs: number; maxProcessingTimeMs: number; maxRetryCount: number },
  ) {}

  add(now: number): void {
    const message: ModelMessage = {
      id: this.messages.length,
      enqueuedAt: now,
      status: "Pending",
      attempts: 0,
      startedAt: 0,
    };
    this.messages.push(message);
    this.pending.push(message);
  }

  tick(now: number): number[] {
    const { maxEnqueuedTimeMs, maxProcessingTimeMs } = this.limits;
    if (maxEnqueuedTimeMs > 0)
      for (const message of this.messages)
        if (message.status !== "Completed" && now - message.enqueuedAt >= maxEnqueuedTimeMs)
          this.finish(message, MessageQueueResult.Timeout);
    if (maxProcessingTimeMs > 0)
      for (const message of [...this.inProgress])
        if (now - message.startedAt >= maxProcessingTimeMs) this.finish(message, MessageQueueResult.Timeout);
    const started = this.pending;
    this.pending = [];
    for (const message of started) {
      message.status = "InProgress";
      message.attempts++;
      message.startedAt = now;
      this.inProgress.push(message);
    }
    return started.map((message) => message.id);
  }

  complete(id: number, attempt: number, result: Settled): void {
    const message = this.messages[id];
    if (message === undefined || message.status !== "InProgress" || message.attempts !== attempt) return;
    if (result === "RetryableError" && message.attempts <= this.limits.maxRetryCount) {
      this.inProgress = this.inProgress.filter((m) => m !== message);
      message.status = "Pending";
      this.pending.push(message);
      return;
    }
    this.finish(message, result === "RetryableError" ? MessageQueueResult.Error : result);
  }

  // The seed's order: every in-progress message (in order of start), then every pending one.
  removeAll(): void {
    for (const message of [...this.inProgress, ...this.pending])
      this.finish(message, MessageQueueResult.Cancelled);
  }

  finish(message: ModelMessage, result: MessageQueueResult): void {
    this.pending = this.pending.filter((m) => m !== message);
    this.inProgress = this.inProgress.filter((m) => m !== message);
    message.status = "Completed";
    this.completions.push([message.id, result]);
  }
}

interface Call {
  readonly id: number;
  readonly attempt: number;
  readonly complete: CompleteProcessing;
}

describe("MessageQueue properties", () => {
  it("follows the seed's model over random add / complete / removeAll / advance / tick sequences", async () => {
    await fc.assert(
      fc.asyncProperty(
        settings,
        fc.array(command, { minLength: 1, maxLength: 80, size: "max" }),
        async (limits, commands) => {
          const clock = new VirtualClock();
          const calls: Call[] = [];
          const completions: Array<[number, MessageQueueResult]> = [];
          const queue = new MessageQueue<{ id: number }>({
            clock,
            ...limits,
            onProcessMessage: (message, complete, { attempt }) => {
              calls.push({ id: message.id, attempt, complete });
            },
          });
          const model = new Model(limits);
          const handles: MessageHandle<{ id: number }>[] = [];
          const onCompleted = (message: { id: number }, result: MessageQueueResult) => {
            completions.push([message.id, result]);
          };
          for (const step of commands) {
            switch (step.kind) {
              case "add":
                handles.push(queue.add({ id: handles.length }, onCompleted));
                model.add(clock.now());
                break;
              case "complete": {
                // Mostly the latest attempts, sometimes any earlier (possibly stale) one.
                const recent = step.pick % 4 === 0 ? step.pick : calls.length - 1 - (step.pick % 3);
                const call = calls[recent % Math.max(calls.length, 1)];
                if (call === undefined) break;
                call.complete(step.result);
                model.complete(call.id, call.attempt, step.result);
                break;
              }
              case "removeAll":
                queue.removeAll();
                model.removeAll();
                break;
              case "advance":
                await clock.advance(step.ms);
                break;
              case "tick": {
                const before = calls.length;
                queue.doWork();
                const started = model.tick(clock.now());
                expect(calls.slice(before).map((c) => c.id)).toEqual(started);
                break;
              }
            }
            expect(completions).toEqual(model.completions);
            expect(queue.pendingCount).toBe(model.pending.length);
            expect(queue.inProgressCount).toBe(model.inProgress.length);
            expect(queue.isEmpty()).toBe(model.completions.length === model.messages.length);
            handles.forEach((handle, id) => {
              expect(handle.state).toBe(model.messages[id]?.status);
              expect(handle.attempts).toBeLessThanOrEqual(limits.maxRetryCount + 1);
            });
          }
          await queue.stop();
          model.removeAll();
          expect(completions).toEqual(model.completions);
          const perMessage = new Map<number, number>();
          for (const [id] of completions) perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
          expect([...perMessage.keys()].sort((a, b) => a - b)).toEqual(handles.map((_h, id) => id));
          expect([...perMessage.values()].every((count) => count === 1)).toBe(true);
          for (const call of calls) call.complete(MessageQueueResult.Success);
          expect(completions).toHaveLength(handles.length);
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  type Behaviour =
    | "hold"
    | "success"
    | "error"
    | "retry"
    | "throw"
    | "resolve"
    | "reject"
    | "rejectRetryable"
    | "tick"
    | "removeAll"
    | "toggleLimits";

  const behaviour = fc.constantFrom<Behaviour>(
    "hold",
    "success",
    "error",
    "retry",
    "throw",
    "resolve",
    "reject",
    "rejectRetryable",
    // A processor that calls back into the queue while its message starts.
    "tick",
    "removeAll",
    "toggleLimits",
  );

  const startedCommand: fc.Arbitrary<Command> = fc.oneof(
    { weight: 4, arbitrary: fc.constant<Command>({ kind: "add" }) },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant("complete" as const), pick: fc.nat(), result: settledResult }),
    },
    { weight: 1, arbitrary: fc.constant<Command>({ kind: "removeAll" }) },
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 300 }) }),
    },
  );

  it("a started queue completes every message exactly once, whatever the processor does, and leaves no timer after stop", async () => {
    await fc.assert(
      fc.asyncProperty(
        settings,
        fc.integer({ min: 1, max: 200 }),
        fc.array(behaviour, { minLength: 1, maxLength: 8 }),
        fc.array(startedCommand, { minLength: 1, maxLength: 60, size: "max" }),
        fc.boolean(),
        async (limits, intervalMs, behaviours, commands, drain) => {
          const clock = new VirtualClock();
          const calls: Call[] = [];
          const counts: number[] = [];
          let completed = 0;
          const queue = new MessageQueue<{ id: number }>({
            clock,
            ...limits,
            onCallbackError: () => undefined,
            onProcessMessage: (message, complete, { attempt }) => {
              calls.push({ id: message.id, attempt, complete });
              const plan = behaviours[(calls.length - 1) % behaviours.length];
              switch (plan) {
                case "success":
                  return complete(MessageQueueResult.Success);
                case "error":
                  return complete(MessageQueueResult.Error);
                case "retry":
                  return complete(MessageQueueResult.RetryableError);
                case "throw":
                  throw new Error("processor failed");
                case "resolve":
                  return Promise.resolve();
                case "reject":
                  return Promise.reject(new Error("rejected"));
                case "rejectRetryable":
                  return Promise.reject(new RetryableError("again"));
                case "tick":
                  queue.doWork();
                  return undefined;
                case "removeAll":
                  queue.removeAll();
                  return undefined;
                case "toggleLimits": {
                  const { maxEnqueuedTimeMs, maxProcessingTimeMs } = queue.retrieveOptions();
                  queue.setMaxEnqueuedTimeMs(maxEnqueuedTimeMs === 0 ? 150 : 0);
                  queue.setMaxProcessingTimeMs(maxProcessingTimeMs === 0 ? 100 : 0);
                  return undefined;
                }
                default:
                  return undefined;
              }
            },
          });
          queue.start({ intervalMs });
          const handles: MessageHandle<{ id: number }>[] = [];
          const onCompleted = (message: { id: number }) => {
            counts[message.id] = (counts[message.id] ?? 0) + 1;
            completed++;
          };
          for (const step of commands) {
            if (step.kind === "add") handles.push(queue.add({ id: handles.length }, onCompleted));
            else if (step.kind === "complete")
              calls[step.pick % Math.max(calls.length, 1)]?.complete(step.result);
            else if (step.kind === "removeAll") queue.removeAll();
            else if (step.kind === "advance") await clock.advance(step.ms);
            await flush();
            expect(counts.every((count) => count === 1)).toBe(true);
            expect(queue.isEmpty()).toBe(completed === handles.length);
            expect(queue.pendingCount + queue.inProgressCount).toBe(handles.length - completed);
            expect(handles.every((h) => h.attempts <= limits.maxRetryCount + 1)).toBe(true);
            if (queue.isEmpty()) expect(clock.pendingTimers).toBe(0);
          }
          const stopped = queue.stop(drain ? { drain: true, timeoutMs: 1_000 } : {});
          await clock.advance(1_000);
          await stopped;
          for (const call of calls) call.complete(MessageQueueResult.Success);
          await flush();
          expect(counts.length).toBe(handles.length);
          expect(counts.every((count) => count === 1)).toBe(true);
          expect(completed).toBe(handles.length);
          expect(queue.isEmpty()).toBe(true);
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});

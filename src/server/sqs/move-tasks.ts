import { randomUUID } from "node:crypto";
import { type ListMessageMoveTasksResultEntry, sqsError } from "../../aws/index.js";
import type { TimerHandle } from "../../core/clock.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import type { QueueAddresses } from "./queue-urls.js";

/** How fast a task moves messages when the request does not say. */
const DEFAULT_RATE = 500;
const TICK_MS = 100;
const KEPT_PER_SOURCE = 10;

type Status = "RUNNING" | "COMPLETED" | "CANCELLING" | "CANCELLED" | "FAILED";

interface MoveTask {
  readonly handle: string;
  readonly source: string;
  readonly destination: string | undefined;
  readonly rate: number;
  readonly startedAt: number;
  readonly toMove: number;
  moved: number;
  status: Status;
  failure: string | undefined;
  timer: TimerHandle | undefined;
}

/**
 * Message move tasks (StartMessageMoveTask): each moves the messages of a dead-letter queue back
 * to their source queues, or to a destination, at most `rate` a second, in the background.
 * Tasks are kept in memory, the last ten per source.
 */
export class MoveTasks {
  readonly #engine: QueueEngine;
  readonly #addresses: QueueAddresses;
  readonly #bySource = new Map<string, MoveTask[]>();

  constructor(engine: QueueEngine, addresses: QueueAddresses) {
    this.#engine = engine;
    this.#addresses = addresses;
  }

  /** Starts moving a dead-letter queue's messages; returns the task's handle. */
  start(sourceArn: string, destinationArn: string | undefined, rate: number | undefined): string {
    const source = this.#existing(sourceArn);
    const queues = this.#engine.listQueues();
    if (!queues.some((queue) => queue.deadLetterQueue === source))
      throw sqsError("InvalidParameterValue", "Source queue must be configured as a Dead Letter Queue.");
    const destination = destinationArn === undefined ? undefined : this.#existing(destinationArn);
    if (rate !== undefined && (!Number.isInteger(rate) || rate < 1 || rate > 500))
      throw sqsError(
        "InvalidParameterValue",
        `Value ${rate} for parameter MaxNumberOfMessagesPerSecond is invalid. Reason: Must be between 1 and 500.`,
      );
    const tasks = this.#bySource.get(source) ?? [];
    if (tasks.some((task) => task.status === "RUNNING"))
      throw sqsError(
        "InvalidParameterValue",
        "There is already a task running. Only one active task is allowed for a source queue arn at a given time.",
      );
    const stats = this.#engine.stats(source);
    const task: MoveTask = {
      handle: Buffer.from(JSON.stringify({ taskId: randomUUID(), sourceArn })).toString("base64"),
      source,
      destination,
      rate: rate ?? DEFAULT_RATE,
      startedAt: this.#engine.clock.now(),
      toMove: stats.active + stats.delayed + stats.inFlight,
      moved: 0,
      status: "RUNNING",
      failure: undefined,
      timer: undefined,
    };
    tasks.unshift(task);
    this.#bySource.set(source, tasks.slice(0, KEPT_PER_SOURCE));
    this.#schedule(task, 0);
    return task.handle;
  }

  /** The most recent tasks of a source, newest first. */
  list(sourceArn: string, maxResults: number | undefined): ListMessageMoveTasksResultEntry[] {
    const source = this.#existing(sourceArn);
    const max = maxResults ?? 1;
    if (!Number.isInteger(max) || max < 1 || max > 10)
      throw sqsError(
        "InvalidParameterValue",
        `Value ${max} for parameter MaxResults is invalid. Reason: Must be between 1 and 10.`,
      );
    return (this.#bySource.get(source) ?? []).slice(0, max).map((task) => {
      const entry: ListMessageMoveTasksResultEntry = {
        Status: task.status,
        SourceArn: this.#addresses.arn(task.source),
        MaxNumberOfMessagesPerSecond: task.rate,
        ApproximateNumberOfMessagesMoved: task.moved,
        ApproximateNumberOfMessagesToMove: task.toMove,
        StartedTimestamp: task.startedAt,
      };
      if (task.status === "RUNNING") entry.TaskHandle = task.handle;
      if (task.destination !== undefined) entry.DestinationArn = this.#addresses.arn(task.destination);
      if (task.failure !== undefined) entry.FailureReason = task.failure;
      return entry;
    });
  }

  /** Cancels a running task; returns how many messages it had moved. */
  cancel(handle: string): number {
    for (const tasks of this.#bySource.values())
      for (const task of tasks)
        if (task.handle === handle) {
          if (task.status !== "RUNNING")
            throw sqsError("InvalidParameterValue", "Only active tasks can be cancelled.");
          task.timer?.cancel();
          task.status = "CANCELLED";
          return task.moved;
        }
    throw sqsError(
      "ResourceNotFoundException",
      "The resource that you specified for the TaskHandle parameter doesn't exist.",
    );
  }

  /** Stops every running task (they are marked cancelled). */
  close(): void {
    for (const tasks of this.#bySource.values())
      for (const task of tasks)
        if (task.status === "RUNNING") {
          task.timer?.cancel();
          task.status = "CANCELLED";
        }
  }

  #existing(arn: string): string {
    const name = this.#addresses.nameFromArn(arn, "SourceArn");
    if (this.#engine.getQueueRecord(name) === undefined)
      throw sqsError(
        "ResourceNotFoundException",
        `The resource that you specified for the SourceArn parameter doesn't exist: ${arn}.`,
      );
    return name;
  }

  #schedule(task: MoveTask, delayMs: number): void {
    task.timer = this.#engine.clock.setTimer(() => this.#step(task), delayMs, true);
  }

  // Moves the share of one tick, then schedules the next; a tick that moves nothing ends the task.
  #step(task: MoveTask): void {
    if (task.status !== "RUNNING") return;
    try {
      const limit = Math.max(1, Math.round((task.rate * TICK_MS) / 1000));
      const moved = this.#engine.redrive(task.source, { target: task.destination, limit });
      task.moved += moved;
      if (moved === 0) {
        task.status = "COMPLETED";
        return;
      }
      this.#schedule(task, TICK_MS);
    } catch (error) {
      task.status = "FAILED";
      task.failure = error instanceof Error ? error.message : String(error);
    }
  }
}

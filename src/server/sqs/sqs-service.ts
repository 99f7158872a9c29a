import { type SqsOperation, type SqsOutput, type SqsRequest, sqsError } from "../../aws/index.js";
import type { Clock } from "../../core/clock.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import { WriteBatcher } from "../../engine/write-batcher.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { moveTaskHandlers } from "./handlers/move-task-handlers.js";
import { permissionHandlers } from "./handlers/permission-handlers.js";
import { queueHandlers } from "./handlers/queue-handlers.js";
import { receiveHandlers } from "./handlers/receive-handlers.js";
import { sendHandlers } from "./handlers/send-handlers.js";
import { settleHandlers } from "./handlers/settle-handlers.js";
import { MoveTasks } from "./move-tasks.js";
import { QueueAddresses } from "./queue-urls.js";
import { ReceiveAttempts } from "./receive-attempts.js";

/** One call as the service sees it, whatever carried it. */
export interface CallContext {
  /** `http://host:port` the caller reached the server at: queue URLs are made on it. */
  readonly origin: string;
  /** Aborted when the caller goes away or the server stops: long polls end at once. */
  readonly signal: AbortSignal;
  /** Who sent the request (its access key id), reported as a message's `SenderId`. */
  readonly senderId: string;
  /**
   * Registers what to undo when the answer never reaches the caller (messages it would have
   * carried); `longPoll` when the call may have waited, so that its caller may have left meanwhile.
   */
  readonly onUndelivered: (undo: () => void, longPoll: boolean) => void;
}

/** What every handler works with. */
export interface ServiceState {
  readonly engine: QueueEngine;
  readonly clock: Clock;
  readonly addresses: QueueAddresses;
  /** Writes of concurrent requests share one commit. */
  readonly writes: WriteBatcher;
  readonly moveTasks: MoveTasks;
  readonly attempts: ReceiveAttempts;
  /** The queue a URL names; `QueueDoesNotExist` when there is none. */
  queueOf(url: string): QueueRecord;
}

/** Handles one operation. */
export type Handler<Op extends SqsOperation> = (
  state: ServiceState,
  input: Extract<SqsRequest, { operation: Op }>["input"],
  call: CallContext,
) => SqsOutput<Op> | Promise<SqsOutput<Op>>;

/** Handlers by operation. */
export type Handlers = { [Op in SqsOperation]?: Handler<Op> };

/** How the service is set up. */
export interface SqsServiceOptions {
  readonly engine: QueueEngine;
  readonly region: string;
  readonly accountId: string;
}

/**
 * Amazon SQS's operations on the queue engine, independent of HTTP: the server decodes a
 * request, hands it here, and encodes what comes back.
 */
export class SqsService {
  readonly #state: ServiceState;
  readonly #handlers: Handlers;

  constructor(options: SqsServiceOptions) {
    const { engine } = options;
    const addresses = new QueueAddresses(options.region, options.accountId);
    this.#state = {
      engine,
      clock: engine.clock,
      addresses,
      writes: new WriteBatcher((fn) => engine.transaction(fn), setImmediate),
      moveTasks: new MoveTasks(engine, addresses),
      attempts: new ReceiveAttempts(engine.clock),
      queueOf(url) {
        const record = engine.getQueueRecord(addresses.nameFromUrl(url));
        if (record === undefined) throw sqsError("QueueDoesNotExist", "The specified queue does not exist.");
        return record;
      },
    };
    this.#handlers = {
      ...queueHandlers,
      ...sendHandlers,
      ...receiveHandlers,
      ...settleHandlers,
      ...moveTaskHandlers,
      ...permissionHandlers,
    };
  }

  /** Runs one decoded request; operations the server does not offer answer `UnsupportedOperation`. */
  async handle(request: SqsRequest, call: CallContext): Promise<unknown> {
    const handler = this.#handlers[request.operation] as
      | ((state: ServiceState, input: unknown, call: CallContext) => unknown)
      | undefined;
    if (handler === undefined)
      throw sqsError("UnsupportedOperation", `${request.operation} is not supported by queue-runtime serve.`);
    return handler(this.#state, request.input, call);
  }

  /** Stops the message move tasks still running. */
  close(): void {
    this.#state.moveTasks.close();
  }
}

import type { Clock } from "../../core/clock.js";
import type { DeleteBatcher } from "./delete-batcher.js";
import type { QueueDirectory } from "./queue-urls.js";
import type { ReceivedMessages } from "./received-messages.js";
import type { SqsHttp } from "./sqs-http.js";

/** What the parts of the SQS provider share: the connection, the queue directory and what is held. */
export interface SqsContext {
  readonly http: SqsHttp;
  readonly directory: QueueDirectory;
  readonly clock: Clock;
  /** Received messages not yet settled, for dead-letter copies. */
  readonly received: ReceivedMessages;
  /** Deletes of the same moment, sent together. */
  readonly deletes: DeleteBatcher;
}

import type { QueueErrorCode, QueueErrorOptions } from "../core/errors.js";
import { QueueError } from "../core/errors.js";

/** Who AWS blames for an error: the caller (`Sender`) or the service (`Receiver`). */
export type AwsFault = "Sender" | "Receiver";

/** What identifies an AWS error on the wire, besides its message. */
export interface AwsErrorDetails {
  /** The error's name as SDKs report it (for example `QueueDoesNotExist`, `InvalidParameterValue`). */
  readonly awsCode: string;
  /** The JSON protocol's `__type`: a shape id such as `com.amazonaws.sqs#QueueDoesNotExist`. */
  readonly type: string;
  /** The AWS query protocol code carried in `x-amzn-query-error` (for example `AWS.SimpleQueueService.NonExistentQueue`). */
  readonly queryCode: string;
  /** The HTTP status the error is answered with. */
  readonly status: number;
  readonly fault: AwsFault;
}

/** Options of an {@link AwsError}: its wire identity plus the usual {@link QueueErrorOptions}. */
export interface AwsErrorOptions extends Omit<QueueErrorOptions, "providerCode">, AwsErrorDetails {
  /** The `x-amzn-RequestId` of the response that carried the error, when one did. */
  readonly requestId?: string;
}

/**
 * A QueueError that came from, or is to be sent as, an AWS error response: it keeps the AWS code
 * (also in `providerCode`), the `__type`, the query-compatible code, the HTTP status and the fault.
 */
export class AwsError extends QueueError implements AwsErrorDetails {
  declare readonly providerCode: string;
  readonly type: string;
  readonly queryCode: string;
  readonly status: number;
  readonly fault: AwsFault;
  readonly requestId: string | undefined;

  /** Builds an error with a queue-runtime `code` and its AWS wire identity. */
  constructor(code: QueueErrorCode, message: string, options: AwsErrorOptions) {
    super(code, message, { ...options, providerCode: options.awsCode });
    this.type = options.type;
    this.queryCode = options.queryCode;
    this.status = options.status;
    this.fault = options.fault;
    this.requestId = options.requestId;
  }

  /** The AWS error code, as SDKs name it. */
  get awsCode(): string {
    return this.providerCode;
  }
}

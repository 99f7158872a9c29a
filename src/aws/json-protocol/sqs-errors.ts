import type { QueueErrorCode } from "../../core/errors.js";
import type { AwsFault } from "../aws-error.js";
import { AwsError } from "../aws-error.js";

/** How one AWS error travels and what it means to queue-runtime. */
export interface SqsErrorSpec {
  /** The JSON protocol's `__type`. */
  readonly type: string;
  /** The code in `x-amzn-query-error`. */
  readonly queryCode: string;
  readonly status: number;
  readonly fault: AwsFault;
  /** The queue-runtime code a client reports it as. */
  readonly code: QueueErrorCode;
  /** Overrides the transience the code implies. */
  readonly transient?: boolean;
  /** AWS's wording where it does not depend on the request. */
  readonly message?: string;
}

const SQS = "com.amazonaws.sqs#";
// Shape ids for errors outside the SQS model are not published for SQS; clients read the part after '#'.
const CORAL = "com.amazon.coral.service#";
const SMITHY = "smithy.framework#";

const sender = (
  type: string,
  queryCode: string,
  status: number,
  code: QueueErrorCode,
  message?: string,
): SqsErrorSpec => ({
  type,
  queryCode,
  status,
  fault: "Sender",
  code,
  ...(message === undefined ? {} : { message }),
});

/**
 * The errors an SQS endpoint answers, keyed by the name SDKs report: every error of the SQS model
 * (with its `awsQueryError` code and status), the unmodeled ones real SQS returns, the SigV4
 * authentication errors, and the protocol's own errors for bodies and content types.
 */
export const SQS_ERRORS = {
  BatchEntryIdsNotDistinct: sender(
    `${SQS}BatchEntryIdsNotDistinct`,
    "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
    400,
    "Validation",
  ),
  BatchRequestTooLong: sender(
    `${SQS}BatchRequestTooLong`,
    "AWS.SimpleQueueService.BatchRequestTooLong",
    400,
    "BatchTooLarge",
  ),
  EmptyBatchRequest: sender(
    `${SQS}EmptyBatchRequest`,
    "AWS.SimpleQueueService.EmptyBatchRequest",
    400,
    "Validation",
  ),
  InvalidAddress: sender(`${SQS}InvalidAddress`, "InvalidAddress", 404, "Validation"),
  InvalidAttributeName: sender(`${SQS}InvalidAttributeName`, "InvalidAttributeName", 400, "Validation"),
  InvalidAttributeValue: sender(`${SQS}InvalidAttributeValue`, "InvalidAttributeValue", 400, "Validation"),
  InvalidBatchEntryId: sender(
    `${SQS}InvalidBatchEntryId`,
    "AWS.SimpleQueueService.InvalidBatchEntryId",
    400,
    "Validation",
  ),
  InvalidIdFormat: sender(`${SQS}InvalidIdFormat`, "InvalidIdFormat", 400, "InvalidReceipt"),
  InvalidMessageContents: sender(`${SQS}InvalidMessageContents`, "InvalidMessageContents", 400, "Validation"),
  InvalidSecurity: sender(`${SQS}InvalidSecurity`, "InvalidSecurity", 403, "Authentication"),
  KmsAccessDenied: sender(`${SQS}KmsAccessDenied`, "KMS.AccessDeniedException", 400, "PermissionDenied"),
  KmsDisabled: sender(`${SQS}KmsDisabled`, "KMS.DisabledException", 400, "Provider"),
  KmsInvalidKeyUsage: sender(`${SQS}KmsInvalidKeyUsage`, "KMS.InvalidKeyUsageException", 400, "Provider"),
  KmsInvalidState: sender(`${SQS}KmsInvalidState`, "KMS.InvalidStateException", 400, "Provider"),
  KmsNotFound: sender(`${SQS}KmsNotFound`, "KMS.NotFoundException", 400, "Provider"),
  KmsOptInRequired: sender(`${SQS}KmsOptInRequired`, "KMS.OptInRequired", 403, "PermissionDenied"),
  KmsThrottled: sender(`${SQS}KmsThrottled`, "KMS.ThrottlingException", 400, "Throttled"),
  MessageNotInflight: sender(
    `${SQS}MessageNotInflight`,
    "AWS.SimpleQueueService.MessageNotInflight",
    400,
    "InvalidReceipt",
  ),
  OverLimit: sender(`${SQS}OverLimit`, "OverLimit", 403, "Throttled"),
  PurgeQueueInProgress: sender(
    `${SQS}PurgeQueueInProgress`,
    "AWS.SimpleQueueService.PurgeQueueInProgress",
    403,
    "Throttled",
  ),
  QueueDeletedRecently: {
    ...sender(`${SQS}QueueDeletedRecently`, "AWS.SimpleQueueService.QueueDeletedRecently", 400, "Provider"),
    transient: true,
  },
  QueueDoesNotExist: sender(
    `${SQS}QueueDoesNotExist`,
    "AWS.SimpleQueueService.NonExistentQueue",
    400,
    "QueueNotFound",
    "The specified queue does not exist.",
  ),
  QueueNameExists: sender(`${SQS}QueueNameExists`, "QueueAlreadyExists", 400, "QueueAlreadyExists"),
  ReceiptHandleIsInvalid: sender(
    `${SQS}ReceiptHandleIsInvalid`,
    "ReceiptHandleIsInvalid",
    404,
    "InvalidReceipt",
  ),
  RequestThrottled: sender(`${SQS}RequestThrottled`, "RequestThrottled", 403, "Throttled"),
  ResourceNotFoundException: sender(
    `${SQS}ResourceNotFoundException`,
    "ResourceNotFoundException",
    404,
    "Provider",
  ),
  TooManyEntriesInBatchRequest: sender(
    `${SQS}TooManyEntriesInBatchRequest`,
    "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
    400,
    "BatchTooLarge",
  ),
  UnsupportedOperation: sender(
    `${SQS}UnsupportedOperation`,
    "AWS.SimpleQueueService.UnsupportedOperation",
    400,
    "Unsupported",
  ),

  InvalidParameterValue: sender(
    `${SQS}InvalidParameterValueException`,
    "InvalidParameterValue",
    400,
    "Validation",
  ),
  MissingParameter: sender(`${SQS}MissingRequiredParameterException`, "MissingParameter", 400, "Validation"),

  MissingAction: sender(`${CORAL}MissingAction`, "MissingAction", 400, "Validation"),
  InvalidAction: sender(`${CORAL}InvalidAction`, "InvalidAction", 400, "Unsupported"),

  MissingAuthenticationToken: sender(
    `${CORAL}MissingAuthenticationToken`,
    "MissingAuthenticationToken",
    403,
    "Authentication",
  ),
  IncompleteSignature: sender(`${CORAL}IncompleteSignature`, "IncompleteSignature", 400, "Authentication"),
  InvalidClientTokenId: sender(`${CORAL}InvalidClientTokenId`, "InvalidClientTokenId", 403, "Authentication"),
  SignatureDoesNotMatch: sender(
    `${CORAL}SignatureDoesNotMatch`,
    "SignatureDoesNotMatch",
    403,
    "Authentication",
  ),
  RequestExpired: sender(`${CORAL}RequestExpired`, "RequestExpired", 400, "Authentication"),

  SerializationException: sender(
    `${SMITHY}SerializationException`,
    "SerializationException",
    400,
    "Validation",
  ),
  UnsupportedMediaType: sender(
    `${SMITHY}UnsupportedMediaTypeException`,
    "UnsupportedMediaType",
    415,
    "Validation",
  ),
  InternalFailure: {
    type: `${CORAL}InternalFailure`,
    queryCode: "InternalFailure",
    status: 500,
    fault: "Receiver",
    code: "Provider",
    transient: true,
    message: "The request processing has failed because of an unknown error, exception or failure.",
  },
  ServiceUnavailable: {
    type: `${CORAL}ServiceUnavailable`,
    queryCode: "ServiceUnavailable",
    status: 503,
    fault: "Receiver",
    code: "Provider",
    transient: true,
    message: "The request has failed due to a temporary failure of the server.",
  },
} as const satisfies Readonly<Record<string, SqsErrorSpec>>;

/** The name of an error in {@link SQS_ERRORS}. */
export type SqsErrorName = keyof typeof SQS_ERRORS;

const SPECS: ReadonlyMap<string, SqsErrorSpec> = new Map(Object.entries(SQS_ERRORS));
const BY_QUERY_CODE: ReadonlyMap<string, SqsErrorName> = new Map(
  Object.entries(SQS_ERRORS).map(([name, spec]) => [spec.queryCode, name as SqsErrorName]),
);
const BY_TYPE_NAME: ReadonlyMap<string, SqsErrorName> = new Map(
  Object.entries(SQS_ERRORS).map(([name, spec]) => [shapeName(spec.type), name as SqsErrorName]),
);

/** The spec of a known error name; undefined for any other. */
export function sqsErrorSpec(name: string): SqsErrorSpec | undefined {
  return SPECS.get(name);
}

/** The known error a response names by its query code or its `__type` (either may be absent). */
export function findSqsError(
  queryCode: string | undefined,
  type: string | undefined,
): SqsErrorName | undefined {
  return (
    (queryCode === undefined ? undefined : BY_QUERY_CODE.get(queryCode)) ??
    (type === undefined ? undefined : BY_TYPE_NAME.get(shapeName(type)))
  );
}

/** The name part of a `__type` or `x-amzn-errortype` value: after any `#`, before any `:`. */
export function shapeName(type: string): string {
  const colon = type.indexOf(":");
  const trimmed = colon === -1 ? type : type.slice(0, colon);
  return trimmed.slice(trimmed.indexOf("#") + 1);
}

/** Options of {@link sqsError} beyond the name and message. */
export interface SqsErrorOptions {
  readonly cause?: unknown;
  readonly retryAfterMs?: number;
  readonly requestId?: string;
}

/** The AwsError a server answers for a known error, with AWS's default wording when none is given. */
export function sqsError(name: SqsErrorName, message?: string, options: SqsErrorOptions = {}): AwsError {
  const spec: SqsErrorSpec = SQS_ERRORS[name];
  return new AwsError(spec.code, message ?? spec.message ?? name, {
    awsCode: name,
    type: spec.type,
    queryCode: spec.queryCode,
    status: spec.status,
    fault: spec.fault,
    ...(spec.transient === undefined ? {} : { isTransient: spec.transient }),
    ...options,
  });
}

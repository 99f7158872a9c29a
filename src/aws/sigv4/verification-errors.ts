import { AwsError } from "../aws-error.js";

/** The AWS error codes a SigV4 verification can fail with. */
export const SIGV4_ERROR_CODES = [
  "MissingAuthenticationToken",
  "IncompleteSignature",
  "InvalidClientTokenId",
  "SignatureDoesNotMatch",
  "RequestExpired",
] as const;

/** The AWS error code of a failed SigV4 verification. */
export type SigV4ErrorCode = (typeof SIGV4_ERROR_CODES)[number];

/** HTTP statuses from AWS's list of common errors. */
const STATUS: Readonly<Record<SigV4ErrorCode, number>> = {
  MissingAuthenticationToken: 403,
  IncompleteSignature: 400,
  InvalidClientTokenId: 403,
  SignatureDoesNotMatch: 403,
  RequestExpired: 400,
};

/** AWS's own wording for the failures whose message does not depend on the request. */
export const SIGV4_MESSAGES = {
  missingToken: "Request is missing Authentication Token",
  unknownKey: "The security token included in the request is invalid.",
  mismatch:
    "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
} as const;

/**
 * A verification failure as an {@link AwsError} with code `Authentication`, the AWS code in
 * `providerCode` and AWS's HTTP status. Messages name the access key id at most, never a secret.
 */
export function sigV4Error(awsCode: SigV4ErrorCode, message: string): AwsError {
  return new AwsError("Authentication", message, {
    awsCode,
    // AWS's shape ids for these common errors are not published for SQS; clients read the code part.
    type: `com.amazon.coral.service#${awsCode}`,
    queryCode: awsCode,
    status: STATUS[awsCode],
    fault: "Sender",
  });
}

/** True when `error` is a SigV4 verification failure, optionally with the given AWS code. */
export function isSigV4Error(error: unknown, awsCode?: SigV4ErrorCode): error is AwsError {
  return (
    error instanceof AwsError &&
    (SIGV4_ERROR_CODES as readonly string[]).includes(error.awsCode) &&
    (awsCode === undefined || error.awsCode === awsCode)
  );
}

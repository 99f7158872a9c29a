import { QueueError, type QueueErrorCode, SOCKET_ERROR_CODES } from "../../core/errors.js";

/** JetStream API error codes (`err_code`) that mean something in queue-runtime's words. */
const API_CODES: Readonly<Record<number, QueueErrorCode>> = {
  10059: "QueueNotFound", // stream not found
  10014: "QueueNotFound", // consumer not found
  10058: "QueueAlreadyExists", // stream name already in use with another configuration
  10054: "MessageTooLarge", // message size exceeds maximum allowed
  10071: "Provider", // wrong last sequence: callers that expect it look for it themselves
  10039: "Configuration", // JetStream not enabled for the account
  10076: "Configuration", // JetStream not enabled
};

/** What the client library's errors carry, all optional. */
interface NatsErrorShape {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
}

/** The JetStream API error code of `error`, if it has one. */
export function apiCode(error: unknown): number | undefined {
  const shape = error as NatsErrorShape | null;
  if (shape?.name !== "JetStreamApiError" && !/^JetStreamApiError|NotFoundError$/.test(String(shape?.name)))
    return undefined;
  return typeof shape?.code === "number" ? shape.code : undefined;
}

/** True when the library reported a request that got no answer in time. */
function isTimeout(error: unknown): boolean {
  const name = (error as NatsErrorShape | null)?.name;
  return name === "TimeoutError" || (error as NatsErrorShape | null)?.code === "TIMEOUT";
}

/**
 * A QueueError for whatever the library threw while doing `what`. `disconnected` tells whether
 * the connection was down: a request that timed out then, or found no responder while the
 * server restarts, failed because the broker was out of reach (`ConnectionFailed`, naming it).
 */
export function fromNatsError(
  error: unknown,
  what: string,
  servers: string,
  disconnected: boolean,
): QueueError {
  if (error instanceof QueueError) return error;
  const shape = (error ?? {}) as NatsErrorShape;
  const name = typeof shape.name === "string" ? shape.name : "";
  const text = typeof shape.message === "string" ? shape.message : String(error);
  const code = apiCode(error);
  const mapped = code === undefined ? undefined : API_CODES[code];
  const options = { cause: error, ...(code === undefined ? {} : { providerCode: String(code) }) };
  if (mapped !== undefined) return new QueueError(mapped, `${what}: ${text}`, options);
  const socket = typeof shape.code === "string" && SOCKET_ERROR_CODES.has(shape.code);
  if (
    name === "ClosedConnectionError" ||
    name === "ConnectionError" ||
    name === "DrainingConnectionError" ||
    socket ||
    (disconnected && (isTimeout(error) || name === "NoRespondersError" || name === "RequestError"))
  )
    return new QueueError(
      "ConnectionFailed",
      `${what}: NATS at ${servers} is out of reach (${text})`,
      options,
    );
  if (isTimeout(error))
    return new QueueError("Timeout", `${what}: NATS at ${servers} did not answer in time`, options);
  if (name === "AuthorizationError" || name === "UserAuthenticationExpiredError")
    return new QueueError("Authentication", `${what}: ${text}`, options);
  if (name === "PermissionViolationError")
    return new QueueError("PermissionDenied", `${what}: ${text}`, options);
  // No responder for a JetStream API subject: JetStream is starting (a restart), transient.
  if (name === "NoRespondersError" || name === "RequestError")
    return new QueueError(
      "ConnectionFailed",
      `${what}: JetStream at ${servers} did not answer (${text})`,
      options,
    );
  return new QueueError("Provider", `${what}: ${text}`, { ...options, isTransient: false });
}

import type { IncomingMessage, ServerResponse } from "node:http";
import { QueueError, type QueueErrorCode } from "../core/errors.js";
import { readRequestBody } from "../server/request-body.js";

/** The largest request body the dashboard reads: a 1 MiB message, escaped in JSON, fits. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Headers on every answer: nothing is cached, framed, sniffed or told where it came from. */
export const COMMON_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
} as const;

/** The HTTP status of a failure, by its code. */
const STATUS_OF: Partial<Record<QueueErrorCode, number>> = {
  QueueNotFound: 404,
  MessageNotFound: 404,
  Validation: 400,
  Configuration: 400,
  MessageTooLarge: 413,
  PermissionDenied: 403,
  Unsupported: 501,
};

/** Answers `value` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res
    .writeHead(status, {
      ...COMMON_HEADERS,
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body),
    })
    .end(body);
}

/** Answers a failure as `{ error: { code, message } }`, its status from its code (500 for what is not a `QueueError`). */
export function sendError(res: ServerResponse, error: unknown, scrub: (text: string) => string): void {
  const failure = QueueError.is(error)
    ? { status: STATUS_OF[error.code] ?? 500, code: error.code, message: error.message }
    : { status: 500, code: "Provider", message: error instanceof Error ? error.message : String(error) };
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, failure.status, { error: { code: failure.code, message: scrub(failure.message) } });
}

/**
 * Reads a request body as a JSON object (no body reads as `{}`), or `undefined` when it is not
 * one: the caller refuses that only once it knows the request may change anything at all.
 */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const text = (await readRequestBody(req, MAX_BODY_BYTES, tooLarge)).toString("utf8");
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The failure of a request body over {@link MAX_BODY_BYTES}. */
function tooLarge(bytes: number): QueueError {
  return new QueueError(
    "MessageTooLarge",
    `a request body may be at most ${MAX_BODY_BYTES} bytes, not ${bytes}`,
  );
}

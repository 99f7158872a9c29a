import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { QueueError } from "../core/errors.js";
import { addressedToLoopback } from "../http/loopback-hosts.js";

/** The request header a change carries the dashboard's token in (a JSON body's `token` member also does). */
export const TOKEN_HEADER = "x-queue-runtime-token";

/** A fresh token: 32 random bytes, URL-safe, printed once at start. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Who may look at the dashboard and who may change queues through it. */
export class DashboardAccess {
  readonly #digest: Buffer;
  readonly #loopbackOnly: boolean;

  /** `loopbackOnly` refuses requests addressed to any other host name (a DNS rebinding page's). */
  constructor(token: string, options: { loopbackOnly: boolean }) {
    this.#digest = digestOf(token);
    this.#loopbackOnly = options.loopbackOnly;
  }

  /** Refuses a request addressed to a host name that is not this machine's, when bound to loopback. */
  checkHost(req: IncomingMessage): void {
    if (this.#loopbackOnly && !addressedToLoopback(req))
      throw new QueueError(
        "PermissionDenied",
        "this dashboard answers requests addressed to localhost or 127.0.0.1 only",
      );
  }

  /**
   * Refuses a change from another origin, or without the token (from `x-queue-runtime-token`,
   * else the body's `token`): a browser sends `Origin` with every cross-origin change, and no
   * cookie or ambient credential stands in for the token.
   */
  checkChange(req: IncomingMessage, bodyToken: unknown): void {
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host ?? ""}`)
      throw new QueueError(
        "PermissionDenied",
        `a change from ${origin} is refused: open the dashboard itself`,
      );
    const header = req.headers[TOKEN_HEADER];
    const given = typeof header === "string" ? header : typeof bodyToken === "string" ? bodyToken : undefined;
    if (given === undefined)
      throw new QueueError("PermissionDenied", "a change needs the token queue-runtime printed at start");
    // Digests are compared, so that neither the length nor a prefix of the token can be timed.
    if (!timingSafeEqual(digestOf(given), this.#digest))
      throw new QueueError("PermissionDenied", "the token is not this dashboard's");
  }
}

/** The SHA-256 digest of a token. */
function digestOf(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

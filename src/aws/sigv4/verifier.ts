import { createHmac, timingSafeEqual } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import { systemClock } from "../../core/clock.js";
import { AuthorizationParser } from "./authorization.js";
import {
  canonicalRequest,
  credentialScope,
  formatAmzDate,
  parseAmzDate,
  SCOPE_TERMINATOR,
  sha256Hex,
  stringToSign,
  UNSIGNED_PAYLOAD,
} from "./canonical-request.js";
import type { AwsCredentials } from "./credentials.js";
import type { HttpHeaders } from "./headers.js";
import { getHeader } from "./headers.js";
import { SigningKeyCache } from "./signing-key.js";
import { SIGV4_MESSAGES, sigV4Error } from "./verification-errors.js";

/**
 * Finds the secret access key of an access key id (and its session token, when the request
 * carries one); undefined when the key is unknown or the token is not valid for it.
 */
export type SecretLookup = (
  accessKeyId: string,
  sessionToken: string | undefined,
) => string | undefined | Promise<string | undefined>;

/** How a {@link SigV4Verifier} checks requests. */
export interface SigV4VerifierOptions {
  /** The signing name the credential scope must name (`sqs`). */
  readonly service: string;
  readonly lookupSecret: SecretLookup;
  /** When set, the credential scope must name this region; any region is accepted otherwise. */
  readonly region?: string;
  /** The source of the server time; the system clock by default. */
  readonly clock?: Clock;
  /** How far the request time may be from the server time; 15 minutes by default, as AWS allows. */
  readonly maxSkewMs?: number;
  /** Accept `x-amz-content-sha256: UNSIGNED-PAYLOAD` (default false: the body must be signed). */
  readonly allowUnsignedPayload?: boolean;
}

/** A received request, as the server read it. */
export interface VerifiableRequest {
  readonly method: string;
  /** The path exactly as received (still percent-encoded), without the query. */
  readonly path: string;
  /** The raw query string as received, without `?`. */
  readonly query?: string;
  /** Preferably Node's `req.rawHeaders` (see {@link HttpHeaders}). */
  readonly headers: HttpHeaders;
  /** The exact body bytes. */
  readonly body?: string | Uint8Array;
}

/** Who signed a verified request, and under which scope. */
export interface VerifiedRequest {
  readonly accessKeyId: string;
  readonly region: string;
  readonly service: string;
  readonly sessionToken: string | undefined;
  readonly signedHeaders: readonly string[];
  /** The request time (ms since the epoch) the signature covers. */
  readonly requestTime: number;
}

const DEFAULT_MAX_SKEW_MS = 15 * 60_000;

/**
 * Verifies `AWS4-HMAC-SHA256` signed requests, failing with an {@link AwsError} whose AWS code
 * is one of {@link SIGV4_ERROR_CODES}; the signature is compared in constant time.
 */
export class SigV4Verifier {
  readonly #service: string;
  readonly #lookupSecret: SecretLookup;
  readonly #region: string | undefined;
  readonly #clock: Clock;
  readonly #maxSkewMs: number;
  readonly #allowUnsignedPayload: boolean;
  readonly #keys = new SigningKeyCache();
  readonly #authorizations = new AuthorizationParser();
  #lastDate: RequestDate | undefined;

  /** A verifier for one service. */
  constructor(options: SigV4VerifierOptions) {
    this.#service = options.service;
    this.#lookupSecret = options.lookupSecret;
    this.#region = options.region;
    this.#clock = options.clock ?? systemClock;
    this.#maxSkewMs = options.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
    this.#allowUnsignedPayload = options.allowUnsignedPayload ?? false;
  }

  /** Resolves with the signer's identity when the signature is valid; rejects with an AwsError otherwise. */
  async verify(request: VerifiableRequest): Promise<VerifiedRequest> {
    const header = getHeader(request.headers, "authorization");
    if (header === undefined) throw sigV4Error("MissingAuthenticationToken", SIGV4_MESSAGES.missingToken);
    const auth = this.#authorizations.parse(header);
    const { amzDate, requestTime } = this.#requestDate(request.headers);
    this.#checkScope(auth.date, auth.region, auth.service, auth.terminator, amzDate);
    if (!auth.signedHeaders.includes("host")) {
      throw sigV4Error("IncompleteSignature", "'Host' must be a 'SignedHeader' in the AWS Authorization.");
    }

    const sessionToken = getHeader(request.headers, "x-amz-security-token");
    const secret = await this.#lookupSecret(auth.accessKeyId, sessionToken);
    if (secret === undefined) throw sigV4Error("InvalidClientTokenId", SIGV4_MESSAGES.unknownKey);

    const now = this.#clock.now();
    if (Math.abs(now - requestTime) > this.#maxSkewMs) {
      throw sigV4Error(
        "RequestExpired",
        `Request timestamp ${amzDate} is more than ${Math.round(this.#maxSkewMs / 60_000)} minutes from the server time ${formatAmzDate(now)}.`,
      );
    }

    const canonical = canonicalRequest({
      method: request.method,
      path: request.path,
      query: request.query,
      headers: request.headers,
      signedHeaders: auth.signedHeaders,
      payloadHash: this.#payloadHash(request),
    });
    const toSign = stringToSign(amzDate, credentialScope(auth.date, auth.region, auth.service), canonical);
    const key = this.#keys.get(secret, auth.date, auth.region, auth.service);
    const expected = createHmac("sha256", key).update(toSign).digest();
    if (!timingSafeEqual(expected, Buffer.from(auth.signature, "hex"))) {
      throw sigV4Error("SignatureDoesNotMatch", SIGV4_MESSAGES.mismatch);
    }
    return {
      accessKeyId: auth.accessKeyId,
      region: auth.region,
      service: auth.service,
      sessionToken,
      signedHeaders: auth.signedHeaders,
      requestTime,
    };
  }

  #checkScope(date: string, region: string, service: string, terminator: string, amzDate: string): void {
    if (terminator !== SCOPE_TERMINATOR) {
      throw sigV4Error(
        "SignatureDoesNotMatch",
        `Credential should be scoped with a valid terminator: '${SCOPE_TERMINATOR}', not '${terminator}'.`,
      );
    }
    if (date !== amzDate.slice(0, 8)) {
      throw sigV4Error(
        "SignatureDoesNotMatch",
        `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${date}' != '${amzDate.slice(0, 8)}', from '${amzDate}'.`,
      );
    }
    if (service !== this.#service) {
      throw sigV4Error(
        "SignatureDoesNotMatch",
        `Credential should be scoped to correct service: '${this.#service}'.`,
      );
    }
    if (this.#region !== undefined && region !== this.#region) {
      throw sigV4Error(
        "SignatureDoesNotMatch",
        `Credential should be scoped to a valid region, not '${region}'.`,
      );
    }
  }

  /** The request time; an `X-Amz-Date` is parsed once for all the requests of its second. */
  #requestDate(headers: HttpHeaders): RequestDate {
    const amzDate = getHeader(headers, "x-amz-date");
    const last = this.#lastDate;
    if (last !== undefined && amzDate === last.amzDate) return last;
    const date = requestDate(amzDate, headers);
    if (amzDate !== undefined) this.#lastDate = date;
    return date;
  }

  #payloadHash(request: VerifiableRequest): string {
    const declared = getHeader(request.headers, "x-amz-content-sha256");
    if (declared === UNSIGNED_PAYLOAD) {
      if (this.#allowUnsignedPayload) return UNSIGNED_PAYLOAD;
      throw sigV4Error(
        "SignatureDoesNotMatch",
        "This service requires a signed payload, not UNSIGNED-PAYLOAD.",
      );
    }
    const actual = sha256Hex(request.body ?? "");
    if (declared !== undefined && declared !== actual) {
      throw sigV4Error(
        "SignatureDoesNotMatch",
        "The x-amz-content-sha256 header does not match the SHA-256 of the request body.",
      );
    }
    return actual;
  }
}

interface RequestDate {
  readonly amzDate: string;
  readonly requestTime: number;
}

/** The request time from `X-Amz-Date` (`amzDate`), or from `Date` when a client signed that instead. */
function requestDate(amzDate: string | undefined, headers: HttpHeaders): RequestDate {
  if (amzDate !== undefined) {
    const requestTime = parseAmzDate(amzDate);
    if (requestTime === undefined) {
      throw sigV4Error(
        "IncompleteSignature",
        `X-Amz-Date must be in ISO-8601 basic format; got '${amzDate}'.`,
      );
    }
    return { amzDate, requestTime };
  }
  const date = getHeader(headers, "date");
  const requestTime = date === undefined ? Number.NaN : Date.parse(date);
  if (Number.isNaN(requestTime)) {
    throw sigV4Error(
      "IncompleteSignature",
      "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
    );
  }
  return { amzDate: formatAmzDate(requestTime), requestTime };
}

/**
 * A {@link SecretLookup} over fixed credentials: the secret of the matching access key id; when
 * those credentials carry a session token, only requests bearing that same token match.
 */
export function credentialsLookup(...credentials: readonly AwsCredentials[]): SecretLookup {
  const byKey = new Map(credentials.map((entry) => [entry.accessKeyId, entry]));
  return (accessKeyId, sessionToken) => {
    const entry = byKey.get(accessKeyId);
    if (entry === undefined) return undefined;
    if (entry.sessionToken !== undefined && !sameText(entry.sessionToken, sessionToken)) return undefined;
    return entry.secretAccessKey;
  };
}

function sameText(expected: string, actual: string | undefined): boolean {
  if (actual === undefined) return false;
  const a = Buffer.from(expected, "utf8");
  const b = Buffer.from(actual, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

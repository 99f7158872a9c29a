import type { Clock } from "../../core/clock.js";
import { systemClock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { formatAuthorization } from "./authorization.js";
import {
  canonicalRequest,
  credentialScope,
  formatAmzDate,
  sha256Hex,
  stringToSign,
} from "./canonical-request.js";
import type { AwsCredentials } from "./credentials.js";
import type { HttpHeaders } from "./headers.js";
import { forEachHeader } from "./headers.js";
import { SigningKeyCache, signatureOf } from "./signing-key.js";

/** Headers never signed: hop-by-hop headers and those proxies and agents rewrite (as the AWS SDKs do). */
const UNSIGNABLE_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "cache-control",
  "connection",
  "expect",
  "from",
  "keep-alive",
  "max-forwards",
  "pragma",
  "proxy-authorization",
  "referer",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "user-agent",
  "x-amzn-trace-id",
]);

/** How a {@link SigV4Signer} signs. */
export interface SigV4SignerOptions {
  /** The region of the credential scope, for example from `regionFromHost`. */
  readonly region: string;
  /** The signing name of the service (`sqs`). */
  readonly service: string;
  /** The source of the request time; the system clock by default. */
  readonly clock?: Clock;
  /**
   * Whether `X-Amz-Security-Token` is among the signed headers (default, as SQS expects) or is
   * added after signing, as a few services require.
   */
  readonly signSessionToken?: boolean;
  /** Also send and sign `x-amz-content-sha256`, as the AWS SDK for JavaScript does (default false). */
  readonly contentSha256Header?: boolean;
}

/** A request to sign. Every header it has is signed except hop-by-hop ones and `user-agent`. */
export interface SignableRequest {
  readonly method: string;
  /** The path as it will be sent, without the query. */
  readonly path: string;
  /** The raw query string as it will be sent, without `?`. */
  readonly query?: string;
  /** Must include `host` (with the port when it is not the scheme's default). */
  readonly headers: HttpHeaders;
  readonly body?: string | Uint8Array;
  /** The body's hex SHA-256 when already known, or `UNSIGNED-PAYLOAD`; computed from `body` otherwise. */
  readonly payloadHash?: string;
}

/** The outcome of signing: the headers to add to the request, and the intermediate strings. */
export interface SignedHeaders {
  /** `authorization`, `x-amz-date`, and `x-amz-security-token` / `x-amz-content-sha256` when used. */
  readonly headers: Readonly<Record<string, string>>;
  readonly authorization: string;
  readonly signature: string;
  readonly canonicalRequest: string;
  readonly stringToSign: string;
}

/** Signs requests with AWS Signature Version 4 (`AWS4-HMAC-SHA256`), caching signing keys per day. */
export class SigV4Signer {
  readonly #region: string;
  readonly #service: string;
  readonly #clock: Clock;
  readonly #signSessionToken: boolean;
  readonly #contentSha256Header: boolean;
  readonly #keys = new SigningKeyCache();

  /** A signer for one region and service. */
  constructor(options: SigV4SignerOptions) {
    this.#region = options.region;
    this.#service = options.service;
    this.#clock = options.clock ?? systemClock;
    this.#signSessionToken = options.signSessionToken ?? true;
    this.#contentSha256Header = options.contentSha256Header ?? false;
  }

  /** Signs `request` with `credentials` at the clock's current time; returns the headers to add. */
  sign(request: SignableRequest, credentials: AwsCredentials): SignedHeaders {
    const amzDate = formatAmzDate(this.#clock.now());
    const date = amzDate.slice(0, 8);
    const payloadHash = request.payloadHash ?? sha256Hex(request.body ?? "");

    const added: Record<string, string> = { "x-amz-date": amzDate };
    if (this.#contentSha256Header) added["x-amz-content-sha256"] = payloadHash;
    const token = credentials.sessionToken;
    if (token !== undefined && this.#signSessionToken) added["x-amz-security-token"] = token;

    // Headers the signer sets replace any the caller sent under the same name.
    const merged: string[] = [];
    const names = new Set<string>();
    forEachHeader(request.headers, (name, value) => {
      if (Object.hasOwn(added, name) || UNSIGNABLE_HEADERS.has(name)) return;
      merged.push(name, value);
      names.add(name);
    });
    for (const [name, value] of Object.entries(added)) {
      merged.push(name, value);
      names.add(name);
    }
    if (!names.has("host")) throw new QueueError("Validation", "a request to sign must have a host header");
    const signedHeaders = [...names].sort();

    const canonical = canonicalRequest({
      method: request.method,
      path: request.path,
      query: request.query,
      headers: merged,
      signedHeaders,
      payloadHash,
    });
    const scope = credentialScope(date, this.#region, this.#service);
    const toSign = stringToSign(amzDate, scope, canonical);
    const key = this.#keys.get(credentials.secretAccessKey, date, this.#region, this.#service);
    const signature = signatureOf(key, toSign);
    const authorization = formatAuthorization(credentials.accessKeyId, scope, signedHeaders, signature);
    if (token !== undefined && !this.#signSessionToken) added["x-amz-security-token"] = token;
    added.authorization = authorization;
    return { headers: added, authorization, signature, canonicalRequest: canonical, stringToSign: toSign };
  }
}

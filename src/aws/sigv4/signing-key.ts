import { createHmac } from "node:crypto";
import { BoundedCache } from "../../core/bounded-cache.js";
import { SCOPE_TERMINATOR } from "./canonical-request.js";

/** Derives the SigV4 signing key of a secret for one day, region and service (four HMAC-SHA256 steps). */
export function deriveSigningKey(
  secretAccessKey: string,
  date: string,
  region: string,
  service: string,
): Buffer {
  const kDate = createHmac("sha256", `AWS4${secretAccessKey}`).update(date).digest();
  const kRegion = createHmac("sha256", kDate).update(region).digest();
  const kService = createHmac("sha256", kRegion).update(service).digest();
  return createHmac("sha256", kService).update(SCOPE_TERMINATOR).digest();
}

/**
 * Signing keys by (secret, date, region, service), derived once per day instead of per request.
 * Bounded: when full it starts over, which only costs re-deriving the keys in use.
 */
export class SigningKeyCache {
  readonly #keys: BoundedCache<string, Buffer>;

  /** Keeps at most `maxEntries` keys. */
  constructor(maxEntries = 64) {
    this.#keys = new BoundedCache(maxEntries);
  }

  /** The signing key for the scope, derived on first use. */
  get(secretAccessKey: string, date: string, region: string, service: string): Buffer {
    const id = `${date}/${region}/${service}/${secretAccessKey}`;
    let key = this.#keys.get(id);
    if (key === undefined) {
      key = deriveSigningKey(secretAccessKey, date, region, service);
      this.#keys.set(id, key);
    }
    return key;
  }
}

/** Hex HMAC-SHA256 of the string to sign under a signing key: the request's signature. */
export function signatureOf(signingKey: Buffer, stringToSign: string): string {
  return createHmac("sha256", signingKey).update(stringToSign).digest("hex");
}

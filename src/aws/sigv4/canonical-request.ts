import { hash } from "node:crypto";
import { canonicalQueryString, canonicalUri } from "./canonical-uri.js";
import type { HttpHeaders } from "./headers.js";
import { canonicalHeaders } from "./headers.js";

/** The only algorithm this module signs and accepts. */
export const SIGV4_ALGORITHM = "AWS4-HMAC-SHA256";

/** The literal payload hash of requests whose body is not signed. */
export const UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

/** The last element of every SigV4 credential scope. */
export const SCOPE_TERMINATOR = "aws4_request";

/** What the canonical request is built from; the same for the signer and the verifier. */
export interface CanonicalRequestParts {
  readonly method: string;
  /** The path as sent on the wire, without the query. */
  readonly path: string;
  /** The raw query string, without `?`. */
  readonly query?: string | undefined;
  readonly headers: HttpHeaders;
  /** The lower-case names of the signed headers, sorted. */
  readonly signedHeaders: readonly string[];
  /** Hex SHA-256 of the body, or {@link UNSIGNED_PAYLOAD}. */
  readonly payloadHash: string;
}

/** The SigV4 canonical request of a request. */
export function canonicalRequest(parts: CanonicalRequestParts): string {
  return [
    parts.method.toUpperCase(),
    canonicalUri(parts.path),
    canonicalQueryString(parts.query ?? ""),
    canonicalHeaders(parts.headers, parts.signedHeaders),
    parts.signedHeaders.join(";"),
    parts.payloadHash,
  ].join("\n");
}

/** The credential scope `date/region/service/aws4_request`. */
export function credentialScope(date: string, region: string, service: string): string {
  return `${date}/${region}/${service}/${SCOPE_TERMINATOR}`;
}

/** The string to sign for a canonical request made at `amzDate` (`YYYYMMDDTHHMMSSZ`) within `scope`. */
export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return `${SIGV4_ALGORITHM}\n${amzDate}\n${scope}\n${sha256Hex(canonical)}`;
}

/** Lower-case hex SHA-256 of a string's UTF-8 bytes or of raw bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash("sha256", data, "hex");
}

const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** Formats an instant (ms since the epoch) as SigV4's `YYYYMMDDTHHMMSSZ`. */
export function formatAmzDate(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/** Parses `YYYYMMDDTHHMMSSZ` into ms since the epoch; undefined when it is not a valid instant. */
export function parseAmzDate(value: string): number | undefined {
  const match = AMZ_DATE.exec(value);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 20150231 over into March; a real day of the month survives unchanged.
  return day >= 1 && new Date(ms).getUTCDate() === day ? ms : undefined;
}

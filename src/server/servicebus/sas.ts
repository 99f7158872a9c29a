import { createHmac, timingSafeEqual } from "node:crypto";

/** The key a server checks Shared Access Signatures against. */
export interface SasKey {
  readonly keyName: string;
  readonly key: string;
}

/** A SAS token's fields, as `SharedAccessSignature sr=<resource>&sig=<signature>&se=<expiry>&skn=<key name>` carries them. */
export interface SasToken {
  /** The resource URI the token grants, decoded (`sb://localhost/orders`). */
  readonly resource: string;
  readonly signature: string;
  /** When it expires, in seconds since the epoch. */
  readonly expiry: number;
  readonly keyName: string;
  /** The encoded resource exactly as signed. */
  readonly signedResource: string;
}

/** Why a token is refused, in words a client's error shows. */
export type SasRefusal = string;

const PREFIX = "SharedAccessSignature ";

/** The fields of a SAS token, or `undefined` when it is not one. */
export function parseSasToken(token: string): SasToken | undefined {
  if (typeof token !== "string" || !token.startsWith(PREFIX)) return undefined;
  const fields = new Map<string, string>();
  for (const pair of token.slice(PREFIX.length).split("&")) {
    const at = pair.indexOf("=");
    if (at <= 0) return undefined;
    fields.set(pair.slice(0, at), pair.slice(at + 1));
  }
  const sr = fields.get("sr");
  const sig = fields.get("sig");
  const se = fields.get("se");
  const skn = fields.get("skn");
  if (sr === undefined || sig === undefined || se === undefined || skn === undefined || !/^\d+$/.test(se))
    return undefined;
  try {
    return {
      resource: decodeURIComponent(sr),
      signature: decodeURIComponent(sig),
      expiry: Number(se),
      keyName: decodeURIComponent(skn),
      signedResource: sr,
    };
  } catch {
    return undefined;
  }
}

/** The signature Azure computes: base64 HMAC-SHA256 with the key over the encoded resource, a newline and the expiry. */
export function sasSignature(key: string, signedResource: string, expiry: number): string {
  return createHmac("sha256", key).update(`${signedResource}\n${expiry}`).digest("base64");
}

/**
 * Checks a token against the server's key for access to `audience` at `nowMs`: the key name, the
 * signature, the expiry, and that the token's resource is the audience or a path above it (a
 * namespace-wide token grants every entity). Resolves `undefined` when it holds, else why not.
 */
export function checkSasToken(
  token: string,
  key: SasKey,
  audience: string,
  nowMs: number,
): SasRefusal | undefined {
  const parsed = parseSasToken(token);
  if (parsed === undefined) return "the token is not a SharedAccessSignature (sr, sig, se and skn)";
  if (parsed.keyName !== key.keyName)
    return `the token is signed with key ${JSON.stringify(parsed.keyName)}, not ${JSON.stringify(key.keyName)}`;
  const expected = Buffer.from(sasSignature(key.key, parsed.signedResource, parsed.expiry));
  const given = Buffer.from(parsed.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return "the token's signature does not match the key";
  if (parsed.expiry * 1_000 <= nowMs)
    return `the token expired at ${new Date(parsed.expiry * 1_000).toISOString()}`;
  if (!covers(parsed.resource, audience)) return `the token grants ${parsed.resource}, not ${audience}`;
  return undefined;
}

/** Whether a token for `resource` grants `audience`: the same URI, or one of its parents, compared without case or a trailing slash. */
function covers(resource: string, audience: string): boolean {
  const normal = (uri: string) =>
    uri
      .toLowerCase()
      .replace(/\/+$/, "")
      .replace(/^(sb|https?|amqps?):\/\//, "");
  const granted = normal(resource);
  const wanted = normal(audience);
  return wanted === granted || wanted.startsWith(`${granted}/`);
}

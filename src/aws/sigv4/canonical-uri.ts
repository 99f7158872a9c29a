const UNRESERVED_ONLY = /^[A-Za-z0-9\-._~]*$/;
const SUB_DELIMS_LEFT_BY_ENCODE_URI_COMPONENT = /[!'()*]/g;

/**
 * Percent-encodes `value` as SigV4 requires (RFC 3986): every byte of its UTF-8 form except the
 * unreserved `A-Z a-z 0-9 - . _ ~`, with upper-case hex.
 */
export function uriEncode(value: string): string {
  if (UNRESERVED_ONLY.test(value)) return value;
  try {
    return encodeURIComponent(value).replace(SUB_DELIMS_LEFT_BY_ENCODE_URI_COMPONENT, hexEscape);
  } catch {
    // encodeURIComponent refuses lone surrogates; encode the bytes Node would send instead.
    return encodeBytes(Buffer.from(value, "utf8"));
  }
}

function hexEscape(char: string): string {
  return `%${char.charCodeAt(0).toString(16).toUpperCase()}`;
}

function encodeBytes(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) {
    const char = String.fromCharCode(byte);
    out +=
      byte < 0x80 && UNRESERVED_ONLY.test(char)
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * The canonical URI of a request path (the path as sent, without its query): `.` and `..`
 * segments resolved, empty segments dropped, a trailing slash kept, then every segment
 * URI-encoded once more. Encoding what is already percent-encoded is deliberate: every AWS
 * service but S3 signs the double-encoded path, so `%20` on the wire signs as `%2520`.
 */
export function canonicalUri(path: string): string {
  if (path === "" || path === "/") return "/";
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(uriEncode(segment));
  }
  if (segments.length === 0) return "/";
  const lead = path.startsWith("/") ? "/" : "";
  const trail = path.endsWith("/") ? "/" : "";
  return `${lead}${segments.join("/")}${trail}`;
}

/**
 * The canonical query string of a raw query (without `?`): each parameter decoded, encoded again
 * the SigV4 way, `=` added where a value is missing, sorted by encoded name then encoded value.
 */
export function canonicalQueryString(query: string): string {
  if (query === "") return "";
  const pairs: [string, string][] = [];
  for (const part of query.split("&")) {
    if (part === "") continue;
    const equals = part.indexOf("=");
    const name = equals === -1 ? part : part.slice(0, equals);
    const value = equals === -1 ? "" : part.slice(equals + 1);
    pairs.push([uriEncode(uriDecode(name)), uriEncode(uriDecode(value))]);
  }
  pairs.sort(comparePairs);
  let out = "";
  for (const [name, value] of pairs) out += `${out === "" ? "" : "&"}${name}=${value}`;
  return out;
}

function comparePairs(a: [string, string], b: [string, string]): number {
  // Encoded text is ASCII, so comparing code units is comparing bytes, as SigV4 requires.
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

function uriDecode(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    // A stray `%` is kept literally (and encoded as `%25`) rather than failing the request here.
    return value;
  }
}

/** Splits a request target such as Node's `req.url` (`/path?query`) into its path and raw query. */
export function splitRequestTarget(target: string): { path: string; query: string } {
  const question = target.indexOf("?");
  return question === -1
    ? { path: target, query: "" }
    : { path: target.slice(0, question), query: target.slice(question + 1) };
}

/**
 * HTTP headers as either a record (names in any case; a repeated header as an array of values)
 * or a flat `[name, value, name, value, ...]` list such as Node's `req.rawHeaders`. A verifier
 * should be given `rawHeaders`: Node's `req.headers` joins repeats with `", "` where SigV4 joins
 * them with `","`, and drops some repeats altogether.
 */
export type HttpHeaders =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | readonly string[];

/** Calls `visit` with every header's lower-cased name and value, repeats one by one, in order. */
export function forEachHeader(headers: HttpHeaders, visit: (name: string, value: string) => void): void {
  if (isRawHeaders(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) visit(headers[i]!.toLowerCase(), headers[i + 1]!);
    return;
  }
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (typeof value === "string") visit(lower, value);
    else for (const item of value) visit(lower, item);
  }
}

/** The value of header `name` (lower case), repeats joined with `,`; undefined when absent. */
export function getHeader(headers: HttpHeaders, name: string): string | undefined {
  let found: string | undefined;
  if (isRawHeaders(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const header = headers[i]!;
      // Comparing lengths first spares lower-casing nearly every other header.
      if (header.length !== name.length || header.toLowerCase() !== name) continue;
      found = found === undefined ? headers[i + 1]! : `${found},${headers[i + 1]!}`;
    }
    return found;
  }
  const direct = headers[name];
  if (direct !== undefined) return typeof direct === "string" ? direct : direct.join(",");
  forEachHeader(headers, (header, value) => {
    if (header === name) found = found === undefined ? value : `${found},${value}`;
  });
  return found;
}

function isRawHeaders(headers: HttpHeaders): headers is readonly string[] {
  return Array.isArray(headers);
}

const NEEDS_FOLDING = /\s\s|[\t\n\r\f\v]/;
const WHITESPACE_RUN = /\s+/g;

/** A header value as SigV4 signs it: trimmed, every run of whitespace (folded lines too) made one space. */
export function canonicalHeaderValue(value: string): string {
  const trimmed = value.trim();
  return NEEDS_FOLDING.test(trimmed) ? trimmed.replace(WHITESPACE_RUN, " ") : trimmed;
}

/**
 * The canonical headers block (`name:value\n` per signed header, repeats joined with `,` in
 * order) for the given sorted lower-case names; a signed header the request lacks signs as empty.
 */
export function canonicalHeaders(headers: HttpHeaders, signedNames: readonly string[]): string {
  const wanted = new Map<string, string | undefined>();
  for (const name of signedNames) wanted.set(name, undefined);
  forEachHeader(headers, (name, value) => {
    if (!wanted.has(name)) return;
    const previous = wanted.get(name);
    const canonical = canonicalHeaderValue(value);
    wanted.set(name, previous === undefined ? canonical : `${previous},${canonical}`);
  });
  let block = "";
  for (const name of signedNames) block += `${name}:${wanted.get(name) ?? ""}\n`;
  return block;
}

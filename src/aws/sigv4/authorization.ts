import { BoundedCache } from "../../core/bounded-cache.js";
import { SCOPE_TERMINATOR, SIGV4_ALGORITHM } from "./canonical-request.js";
import { sigV4Error } from "./verification-errors.js";

/** The parts of an `Authorization: AWS4-HMAC-SHA256 ...` header. */
export interface ParsedAuthorization {
  readonly accessKeyId: string;
  /** `YYYYMMDD` from the credential scope. */
  readonly date: string;
  readonly region: string;
  readonly service: string;
  /** The scope's last element; `aws4_request` in every valid header. */
  readonly terminator: string;
  /** Lower-case, sorted, without repeats. */
  readonly signedHeaders: readonly string[];
  /** 64 lower-case hex digits. */
  readonly signature: string;
}

/** Formats the `Authorization` header value of a SigV4 signature. */
export function formatAuthorization(
  accessKeyId: string,
  scope: string,
  signedHeaders: readonly string[],
  signature: string,
): string {
  return `${SIGV4_ALGORITHM} Credential=${accessKeyId}/${scope}, SignedHeaders=${signedHeaders.join(";")}, Signature=${signature}`;
}

const HEADER_NAME = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;
const SIGNATURE = /^[0-9a-f]{64}$/;
const SCOPE_DATE = /^\d{8}$/;
const COMPONENTS = ["Credential", "SignedHeaders", "Signature"] as const;
/** How a well-formed header ends: the signature, 64 hex digits, after this. */
const SIGNATURE_COMPONENT = "Signature=";
const SIGNATURE_LENGTH = 64;
/** Distinct headers (less their signatures) an {@link AuthorizationParser} remembers before starting over. */
const REMEMBERED_HEADERS = 256;

/**
 * Parses an `Authorization` header strictly: the algorithm, then exactly the `Credential`,
 * `SignedHeaders` and `Signature` components once each. Fails with `IncompleteSignature`.
 */
export function parseAuthorization(value: string): ParsedAuthorization {
  const header = value.trim();
  const space = header.indexOf(" ");
  const algorithm = space === -1 ? header : header.slice(0, space);
  if (algorithm !== SIGV4_ALGORITHM) {
    throw sigV4Error("IncompleteSignature", `Unsupported AWS 'algorithm': '${algorithm}'.`);
  }
  const components = new Map<string, string>();
  for (const raw of header.slice(space + 1).split(",")) {
    const part = raw.trim();
    const equals = part.indexOf("=");
    const name = equals === -1 ? part : part.slice(0, equals);
    if (!(COMPONENTS as readonly string[]).includes(name) || components.has(name) || equals === -1) {
      throw sigV4Error("IncompleteSignature", `Authorization header has a malformed component: '${part}'.`);
    }
    components.set(name, part.slice(equals + 1));
  }
  const missing = COMPONENTS.filter((name) => !components.has(name));
  if (missing.length > 0) {
    throw sigV4Error(
      "IncompleteSignature",
      missing.map((name) => `Authorization header requires '${name}' parameter.`).join(" "),
    );
  }
  const credential = parseCredential(components.get("Credential")!);
  // Listed field by field: spreading the credential object costs more than the rest of the parse.
  return {
    accessKeyId: credential.accessKeyId,
    date: credential.date,
    region: credential.region,
    service: credential.service,
    terminator: credential.terminator,
    signedHeaders: parseSignedHeaders(components.get("SignedHeaders")!),
    signature: parseSignature(components.get("Signature")!),
  };
}

function parseCredential(credential: string) {
  const parts = credential.split("/");
  const [accessKeyId, date, region, service, terminator] = parts;
  if (
    parts.length !== 5 ||
    accessKeyId === undefined ||
    date === undefined ||
    region === undefined ||
    service === undefined ||
    terminator === undefined ||
    accessKeyId === "" ||
    region === "" ||
    service === "" ||
    !SCOPE_DATE.test(date)
  ) {
    throw sigV4Error(
      "IncompleteSignature",
      `Credential must have the form <access key id>/<YYYYMMDD>/<region>/<service>/${SCOPE_TERMINATOR}.`,
    );
  }
  return { accessKeyId, date, region, service, terminator };
}

function parseSignedHeaders(list: string): string[] {
  const names = list.split(";");
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (!HEADER_NAME.test(name) || (i > 0 && names[i - 1]! >= name)) {
      throw sigV4Error(
        "IncompleteSignature",
        "SignedHeaders must list lower-case header names, sorted, separated by ';'.",
      );
    }
  }
  return names;
}

function parseSignature(signature: string): string {
  if (!SIGNATURE.test(signature)) {
    throw sigV4Error("IncompleteSignature", "Signature must be 64 lower-case hexadecimal digits.");
  }
  return signature;
}

/**
 * Parses `Authorization` headers as {@link parseAuthorization} does, remembering each header up to
 * its signature: one client's requests differ only there (and in the date, once a day), so the
 * credential and the signed header names are parsed and checked once, not per request.
 */
export class AuthorizationParser {
  readonly #parsed = new BoundedCache<string, ParsedAuthorization>(REMEMBERED_HEADERS);

  /** The parts of `value`; fails with `IncompleteSignature` as {@link parseAuthorization}. */
  parse(value: string): ParsedAuthorization {
    const cut = value.length - SIGNATURE_LENGTH;
    const unsigned =
      cut > SIGNATURE_COMPONENT.length &&
      value.startsWith(SIGNATURE_COMPONENT, cut - SIGNATURE_COMPONENT.length)
        ? value.slice(0, cut)
        : undefined;
    if (unsigned === undefined) return parseAuthorization(value);
    const known = this.#parsed.get(unsigned);
    if (known !== undefined) return { ...known, signature: parseSignature(value.slice(cut)) };
    const parsed = parseAuthorization(value);
    this.#parsed.set(unsigned, parsed);
    return parsed;
  }
}

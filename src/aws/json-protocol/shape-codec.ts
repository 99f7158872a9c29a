import type { Schema, StructureSchema } from "./schema.js";

/** Why a JSON value does not fit its shape. */
export type ShapeProblem = "missing" | "invalid";

/** A value that does not fit its shape: which member (`Entries.1.Id`, 1-based like AWS) and why. */
export class ShapeError extends Error {
  override readonly name = "ShapeError";
  readonly problem: ShapeProblem;
  readonly path: string;

  /** A problem at `path`, described by `message`. */
  constructor(problem: ShapeProblem, path: string, message: string) {
    super(message);
    this.problem = problem;
    this.path = path;
  }
}

/** How {@link readShape} treats required members. */
export interface ReadShapeOptions {
  /** Fail on a missing required member (requests); results are read leniently, as SQS omits some. */
  readonly enforceRequired: boolean;
}

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Checks a parsed JSON object against a structure and converts it in place: base64 blobs become
 * bytes, `null` members are dropped as absent. Unknown members are left alone, as AWS ignores
 * them. Throws a {@link ShapeError} at the first problem. Returns the same object, typed.
 */
export function readShape<T>(value: unknown, schema: StructureSchema, options: ReadShapeOptions): T {
  if (!isObject(value)) throw new ShapeError("invalid", "", `${schema.name} must be a JSON object.`);
  readStructure(value, schema, "", options.enforceRequired);
  return value as T;
}

function readStructure(
  value: Record<string, unknown>,
  schema: StructureSchema,
  path: string,
  enforceRequired: boolean,
): void {
  for (const name in schema.members) {
    const member = value[name];
    if (member === undefined) continue;
    if (member === null) {
      delete value[name];
      continue;
    }
    value[name] = readValue(member, schema.members[name]!, join(path, name), enforceRequired);
  }
  if (!enforceRequired) return;
  for (const name of schema.required) {
    if (value[name] === undefined) {
      throw new ShapeError(
        "missing",
        join(path, name),
        `The request must contain the parameter ${join(path, name)}.`,
      );
    }
  }
}

function readValue(value: unknown, schema: Schema, path: string, enforceRequired: boolean): unknown {
  switch (schema.kind) {
    case "string":
      if (typeof value !== "string") throw invalid(path, value, "must be a string");
      return value;
    case "integer":
      if (!Number.isInteger(value) || (value as number) < INT32_MIN || (value as number) > INT32_MAX) {
        throw invalid(path, value, "must be a 32-bit integer");
      }
      return value;
    case "long":
      if (!Number.isSafeInteger(value)) throw invalid(path, value, "must be an integer");
      return value;
    case "boolean":
      if (typeof value !== "boolean") throw invalid(path, value, "must be a boolean");
      return value;
    case "blob":
      if (typeof value !== "string" || !BASE64.test(value)) throw invalid(path, value, "must be base64 text");
      return Buffer.from(value, "base64");
    case "list":
      if (!Array.isArray(value)) throw invalid(path, value, "must be a list");
      for (let i = 0; i < value.length; i++) {
        value[i] = readValue(value[i], schema.member, `${path}.${i + 1}`, enforceRequired);
      }
      return value;
    case "map":
      if (!isObject(value)) throw invalid(path, value, "must be a map");
      for (const key in value)
        value[key] = readValue(value[key], schema.value, `${path}.${key}`, enforceRequired);
      return value;
    case "structure":
      if (!isObject(value)) throw invalid(path, value, "must be a structure");
      readStructure(value, schema, path, enforceRequired);
      return value;
  }
}

function invalid(path: string, value: unknown, reason: string): ShapeError {
  return new ShapeError(
    "invalid",
    path,
    `Value ${preview(value)} for parameter ${path} is invalid. Reason: ${reason}.`,
  );
}

function preview(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "(list)";
  if (typeof value === "object") return "(structure)";
  const text = String(value);
  return text.length > 64 ? `${text.slice(0, 64)}...` : text;
}

function join(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Serialises a value of the given structure to JSON, writing bytes as base64. Values without
 * bytes (most: binary attributes are rare) take plain `JSON.stringify`; the blob pass is a
 * replacer, called for every key, which reads the holder's original value because
 * `Buffer#toJSON` runs before any replacer sees it.
 */
export function writeShape(value: unknown, schema: StructureSchema): string {
  return holdsBytes(value, schema) ? JSON.stringify(value, blobsAsBase64) : JSON.stringify(value);
}

// Looks for bytes only where the schema allows a blob.
function holdsBytes(value: unknown, schema: Schema): boolean {
  switch (schema.kind) {
    case "blob":
      return value instanceof Uint8Array;
    case "list":
      return Array.isArray(value) && value.some((item) => holdsBytes(item, schema.member));
    case "map":
      if (!isObject(value)) return false;
      for (const key in value) if (holdsBytes(value[key], schema.value)) return true;
      return false;
    case "structure":
      if (!isObject(value)) return false;
      for (const name of schema.blobMembers) {
        const member = value[name];
        if (member !== undefined && holdsBytes(member, schema.members[name]!)) return true;
      }
      return false;
    default:
      return false;
  }
}

function blobsAsBase64(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (original instanceof Uint8Array) {
    return Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString("base64");
  }
  return value;
}

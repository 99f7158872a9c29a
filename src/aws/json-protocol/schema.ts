/**
 * A small runtime description of the model's shapes: enough to check a JSON body's types,
 * find missing required members and convert blobs between base64 and bytes.
 */

/** The scalar kinds of the SQS model (enums travel as strings). */
export const SCALAR_KINDS = ["string", "integer", "long", "boolean", "blob"] as const;

/** A scalar kind. */
export type ScalarKind = (typeof SCALAR_KINDS)[number];

/** A scalar shape. */
export interface ScalarSchema {
  readonly kind: ScalarKind;
}

/** A list of one member shape. */
export interface ListSchema {
  readonly kind: "list";
  readonly member: Schema;
}

/** A map from strings to one value shape. */
export interface MapSchema {
  readonly kind: "map";
  readonly value: Schema;
}

/** A structure: named members, some required. */
export interface StructureSchema {
  readonly kind: "structure";
  /** The model's shape name, for messages. */
  readonly name: string;
  readonly members: Readonly<Record<string, Schema>>;
  readonly required: readonly string[];
  /** The members inside which a blob may occur: the only ones an encoder looks into for bytes. */
  readonly blobMembers: readonly string[];
}

/** Any shape. */
export type Schema = ScalarSchema | ListSchema | MapSchema | StructureSchema;

/** One schema per member of `T`, no more and no fewer. */
export type MemberSchemas<T> = { readonly [K in keyof T]-?: Schema };

/** The keys of `T` that are not optional. */
export type RequiredKeys<T> = {
  [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? never : K;
}[keyof T] &
  string;

/** The scalar shapes. */
export const scalar: Readonly<Record<ScalarKind, ScalarSchema>> = {
  string: { kind: "string" },
  integer: { kind: "integer" },
  long: { kind: "long" },
  boolean: { kind: "boolean" },
  blob: { kind: "blob" },
};

/** A list of `member`. */
export function list(member: Schema): ListSchema {
  return { kind: "list", member };
}

/** A map from strings to `value`. */
export function map(value: Schema): MapSchema {
  return { kind: "map", value };
}

/** A structure whose members match the TypeScript interface `T` (checked at compile time). */
export function structure<T>(
  name: string,
  members: MemberSchemas<T>,
  required: readonly RequiredKeys<T>[] = [],
): StructureSchema {
  const all: Readonly<Record<string, Schema>> = members;
  const blobMembers = Object.keys(all).filter((member) => containsBlob(all[member]!));
  return { kind: "structure", name, members: all, required, blobMembers };
}

/** The empty structure of operations without input or output members (Smithy's `Unit`). */
export const unit: StructureSchema = structure<Record<string, never>>("Unit", {});

function containsBlob(schema: Schema): boolean {
  switch (schema.kind) {
    case "blob":
      return true;
    case "list":
      return containsBlob(schema.member);
    case "map":
      return containsBlob(schema.value);
    case "structure":
      return schema.blobMembers.length > 0;
    default:
      return false;
  }
}

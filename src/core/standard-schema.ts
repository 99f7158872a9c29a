// The Standard Schema v1 interface (standardschema.dev), which zod, valibot, ArkType and others
// implement. The spec asks libraries that accept schemas to carry these few types themselves
// rather than depend on a validator.

/** A validator any Standard Schema v1 library produces: zod, valibot, ArkType, or one of your own. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaProps<Input, Output>;
}

/** What a Standard Schema exposes under its `~standard` key. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  /** Checks a value: its output on success, its issues otherwise; may answer through a Promise. */
  readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
}

/** The answer of `validate`: a value, or issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardIssue[] };

/** One problem a schema found; libraries add members of their own (`code`, `type`, ...). */
export interface StandardIssue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | StandardPathSegment)[] | undefined;
}

/** A segment of an issue's path given as an object (valibot does). */
export interface StandardPathSegment {
  readonly key: PropertyKey;
}

/** The output type of a Standard Schema. */
export type SchemaOutput<Schema extends StandardSchemaV1> = NonNullable<
  Schema["~standard"]["types"]
>["output"];

/** A schema that checks nothing: what a consumer without one hands its handler is `unknown`. */
export type AnySchema = StandardSchemaV1<unknown, unknown>;

/** Where an issue is, as a dotted path (`items.0.sku`); `""` for the whole value. */
export function issuePath(issue: StandardIssue): string {
  return (issue.path ?? []).map((segment) => String(keyOf(segment))).join(".");
}

function keyOf(segment: PropertyKey | StandardPathSegment): PropertyKey {
  return typeof segment === "object" && segment !== null ? segment.key : segment;
}

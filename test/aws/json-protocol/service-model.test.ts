import { describe, expect, it } from "vitest";
import type { Schema, StructureSchema } from "../../../src/aws/json-protocol/schema.js";
import {
  MESSAGE_SYSTEM_ATTRIBUTE_NAMES,
  MESSAGE_SYSTEM_ATTRIBUTE_NAMES_FOR_SENDS,
  QUEUE_ATTRIBUTE_NAMES,
} from "../../../src/aws/json-protocol/sqs-enums.js";
import { SQS_ERRORS } from "../../../src/aws/json-protocol/sqs-errors.js";
import { SQS_OPERATIONS } from "../../../src/aws/json-protocol/sqs-operations.js";
import { SQS_SCHEMAS } from "../../../src/aws/json-protocol/sqs-schemas.js";
import { SIGV4_ERROR_CODES, sigV4Error } from "../../../src/aws/sigv4/index.js";
import { readTestJson } from "../testdata.js";

interface ModelMember {
  target: string;
  traits?: Record<string, unknown>;
}

interface ModelShape {
  type: string;
  members?: Record<string, ModelMember>;
  member?: ModelMember;
  key?: ModelMember;
  value?: ModelMember;
  input?: { target: string };
  output?: { target: string };
  operations?: { target: string }[];
  traits?: Record<string, unknown>;
}

const shapes = readTestJson<{ shapes: Record<string, ModelShape> }>("sqs-model/sqs-2012-11-05.json").shapes;
const NS = "com.amazonaws.sqs#";
const PRELUDE: Record<string, string> = {
  "smithy.api#String": "string",
  "smithy.api#Integer": "integer",
  "smithy.api#Long": "long",
  "smithy.api#Boolean": "boolean",
  "smithy.api#Blob": "blob",
};

function shape(id: string): ModelShape {
  const found = shapes[id];
  if (found === undefined) throw new Error(`no shape ${id} in the model`);
  return found;
}

/** Checks a schema against a model shape, member by member, all the way down. */
function expectMatches(id: string, schema: Schema, path: string): void {
  const prelude = PRELUDE[id];
  if (prelude !== undefined) {
    expect(schema.kind, path).toBe(prelude);
    return;
  }
  const model = shape(id);
  const kind = model.type === "enum" ? "string" : model.type;
  expect(schema.kind, path).toBe(kind);
  if (schema.kind === "list") expectMatches(model.member!.target, schema.member, `${path}[]`);
  if (schema.kind === "map") {
    expect(["string", "enum"], `${path} key`).toContain(shape(model.key!.target).type);
    expectMatches(model.value!.target, schema.value, `${path}{}`);
  }
  if (schema.kind === "structure") expectStructure(id, schema, path);
}

function expectStructure(id: string, schema: StructureSchema, path: string): void {
  const members = shape(id).members ?? {};
  expect(schema.name, path).toBe(id.slice(NS.length));
  expect(Object.keys(schema.members).sort(), path).toEqual(Object.keys(members).sort());
  const required = Object.entries(members)
    .filter(([, member]) => member.traits?.["smithy.api#required"] !== undefined)
    .map(([name]) => name);
  expect([...schema.required].sort(), `${path} required`).toEqual(required.sort());
  for (const [name, member] of Object.entries(members)) {
    expectMatches(member.target, schema.members[name]!, `${path}.${name}`);
  }
}

function enumValues(id: string): string[] {
  return Object.values(shape(id).members!).map((member) => member.traits!["smithy.api#enumValue"] as string);
}

describe("the codec's shapes follow the SQS service model", () => {
  it("knows every operation of the service", () => {
    const operations = shape(`${NS}AmazonSQS`).operations!.map((operation) =>
      operation.target.slice(NS.length),
    );
    expect([...SQS_OPERATIONS].sort()).toEqual(operations.sort());
  });

  for (const operation of SQS_OPERATIONS) {
    it(`${operation}: request and result members, types and required flags`, () => {
      const model = shape(`${NS}${operation}`);
      for (const direction of ["input", "output"] as const) {
        const target = model[direction]?.target ?? "smithy.api#Unit";
        const schema = SQS_SCHEMAS[operation][direction];
        if (target === "smithy.api#Unit") expect(Object.keys(schema.members)).toEqual([]);
        else expectStructure(target, schema, `${operation}.${direction}`);
      }
    });
  }

  it("lists the model's enum values", () => {
    expect([...QUEUE_ATTRIBUTE_NAMES]).toEqual(enumValues(`${NS}QueueAttributeName`));
    expect([...MESSAGE_SYSTEM_ATTRIBUTE_NAMES]).toEqual(enumValues(`${NS}MessageSystemAttributeName`));
    expect([...MESSAGE_SYSTEM_ATTRIBUTE_NAMES_FOR_SENDS]).toEqual(
      enumValues(`${NS}MessageSystemAttributeNameForSends`),
    );
  });
});

describe("the error table follows the model", () => {
  const modeled = Object.entries(shapes).filter(([, s]) => s.traits?.["smithy.api#error"] !== undefined);

  it("covers all 28 modeled errors", () => {
    expect(modeled).toHaveLength(28);
  });

  for (const [id, model] of modeled) {
    const name = id.slice(NS.length);
    it(`${name}: __type, query code, status and fault`, () => {
      const query = model.traits!["aws.protocols#awsQueryError"] as
        | { code: string; httpResponseCode: number }
        | undefined;
      const fault = model.traits!["smithy.api#error"] === "client" ? "Sender" : "Receiver";
      const status =
        query?.httpResponseCode ??
        (model.traits!["smithy.api#httpError"] as number | undefined) ??
        (fault === "Sender" ? 400 : 500);
      expect(SQS_ERRORS[name as keyof typeof SQS_ERRORS]).toMatchObject({
        type: id,
        queryCode: query?.code ?? name,
        status,
        fault,
      });
    });
  }

  it("answers SigV4 failures exactly as the verifier reports them", () => {
    for (const code of SIGV4_ERROR_CODES) {
      const error = sigV4Error(code, "m");
      expect(SQS_ERRORS[code]).toMatchObject({
        type: error.type,
        queryCode: error.queryCode,
        status: error.status,
        fault: error.fault,
        code: error.code,
      });
    }
  });
});

import type { ReceivedMessage } from "../message.js";
import { issuePath, type StandardIssue, type StandardSchemaV1 } from "../standard-schema.js";

/** What a schema made of a body: its output, or why it refused it (for the dead letter's description). */
export type SchemaCheck =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: string };

/** The most of a dead letter's description the problems take: Service Bus keeps 4 096 characters. */
const MAX_PROBLEMS_LENGTH = 1_024;

/** Parses `message`'s body as JSON and validates it with `schema`; never throws. */
export async function checkSchema(schema: StandardSchemaV1, message: ReceivedMessage): Promise<SchemaCheck> {
  let body: unknown;
  try {
    body = message.json();
  } catch (error) {
    return refused(`the body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    let result = schema["~standard"].validate(body);
    if (result instanceof Promise) result = await result;
    if (result.issues === undefined) return { ok: true, value: result.value };
    return refused(result.issues.map(describeIssue).join("; "));
  } catch (error) {
    return refused(`the schema threw: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function refused(problems: string): SchemaCheck {
  return {
    ok: false,
    problems:
      problems.length > MAX_PROBLEMS_LENGTH ? `${problems.slice(0, MAX_PROBLEMS_LENGTH - 1)}…` : problems,
  };
}

/** One issue as `path: message` (`message` alone for the whole body). */
function describeIssue(issue: StandardIssue): string {
  const path = issuePath(issue);
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}

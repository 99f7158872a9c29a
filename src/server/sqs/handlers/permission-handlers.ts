import { sqsError } from "../../../aws/index.js";
import type { QueueRecord } from "../../../rules/queue-records.js";
import { attributeContext, updatedQueueRecord } from "../queue-attributes.js";
import type { Handlers, ServiceState } from "../sqs-service.js";

/** The actions AddPermission may grant: the queue owner alone may call the others. */
const GRANTABLE_ACTIONS = new Set([
  "*",
  "ChangeMessageVisibility",
  "DeleteMessage",
  "GetQueueAttributes",
  "GetQueueUrl",
  "ListDeadLetterSourceQueues",
  "PurgeQueue",
  "ReceiveMessage",
  "SendMessage",
]);
/** The most actions one AddPermission may grant. */
const MAX_ACTIONS = 7;

/** One statement of a queue's access policy. */
interface PolicyStatement {
  readonly Sid?: string;
  readonly [field: string]: unknown;
}

/** A queue's access policy, as the `Policy` attribute holds it. */
interface AccessPolicy {
  readonly Version: string;
  readonly Id?: string;
  readonly Statement: PolicyStatement[];
  readonly [field: string]: unknown;
}

/** The queue's policy, or the empty one SQS starts from. */
function policyOf(state: ServiceState, queue: QueueRecord): AccessPolicy {
  const text = queue.properties.Policy;
  const empty = {
    Version: "2012-10-17",
    Id: `${state.addresses.arn(queue.name)}/SQSDefaultPolicy`,
    Statement: [],
  };
  if (text === undefined || text === "") return empty;
  const parsed = JSON.parse(text) as Partial<AccessPolicy>;
  const statements = parsed.Statement;
  return {
    ...empty,
    ...parsed,
    // A policy may hold a single statement as an object rather than a list.
    Statement: Array.isArray(statements) ? [...statements] : statements === undefined ? [] : [statements],
  };
}

/** The queue with `policy` as its `Policy` attribute, set as SetQueueAttributes would (no statements left removes it). */
function withPolicy(state: ServiceState, queue: QueueRecord, policy: AccessPolicy): QueueRecord {
  const Policy = policy.Statement.length === 0 ? "" : JSON.stringify(policy);
  return updatedQueueRecord(queue, { Policy }, attributeContext(state));
}

const invalidLabel = (label: string, reason: string) =>
  sqsError("InvalidParameterValue", `Value ${label} for parameter Label is invalid. Reason: ${reason}`);

/**
 * AddPermission and RemovePermission: statements in the queue's `Policy`, one per label, as SQS
 * writes them. Stored and returned, not enforced (the server has one account).
 */
export const permissionHandlers: Handlers = {
  AddPermission(state, input) {
    const queue = state.queueOf(input.QueueUrl);
    const actions = input.Actions ?? [];
    const accounts = input.AWSAccountIds ?? [];
    if (actions.length === 0)
      throw sqsError("MissingParameter", "The request must contain the parameter Actions.");
    if (accounts.length === 0)
      throw sqsError(
        "InvalidParameterValue",
        "Value [] for parameter PrincipalId is invalid. Reason: Unable to verify.",
      );
    if (actions.length > MAX_ACTIONS)
      throw sqsError("OverLimit", `${actions.length} Actions were found, maximum allowed is ${MAX_ACTIONS}.`);
    const refused = actions.find((action) => !GRANTABLE_ACTIONS.has(action));
    if (refused !== undefined)
      throw sqsError(
        "InvalidParameterValue",
        `Value SQS:${refused} for parameter ActionName is invalid. Reason: Only the queue owner is allowed to invoke this action.`,
      );
    const policy = policyOf(state, queue);
    if (policy.Statement.some((statement) => statement.Sid === input.Label))
      throw invalidLabel(input.Label, "Already exists.");
    const principals = accounts.map((account) => `arn:aws:iam::${account}:root`);
    const granted = actions.map((action) => `SQS:${action}`);
    policy.Statement.push({
      Sid: input.Label,
      Effect: "Allow",
      Principal: { AWS: principals.length === 1 ? principals[0] : principals },
      Action: granted.length === 1 ? granted[0] : granted,
      Resource: state.addresses.arn(queue.name),
    });
    state.engine.updateQueue(withPolicy(state, queue, policy));
    return {};
  },

  RemovePermission(state, input) {
    const queue = state.queueOf(input.QueueUrl);
    const policy = policyOf(state, queue);
    const kept = policy.Statement.filter((statement) => statement.Sid !== input.Label);
    if (kept.length === policy.Statement.length)
      throw invalidLabel(input.Label, "can't find label on existing policy.");
    state.engine.updateQueue(withPolicy(state, queue, { ...policy, Statement: kept }));
    return {};
  },
};

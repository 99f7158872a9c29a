import { sqsError } from "../../../aws/index.js";
import {
  attributeContext,
  differingAttribute,
  newQueueRecord,
  renderAttributes,
  retagged,
  tagsOf,
  updatedQueueRecord,
} from "../queue-attributes.js";
import { isQueueName } from "../queue-urls.js";
import type { Handlers, ServiceState } from "../sqs-service.js";

const MAX_LIST_RESULTS = 1_000;

function checkMaxResults(maxResults: number | undefined): number {
  if (maxResults === undefined) return MAX_LIST_RESULTS;
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > MAX_LIST_RESULTS)
    throw sqsError(
      "InvalidParameterValue",
      `Value ${maxResults} for parameter MaxResults is invalid. Reason: Must be between 1 and 1000.`,
    );
  return maxResults;
}

/** One page of URLs: `NextToken` is the last name handed out, base64-encoded. */
function page(
  state: ServiceState,
  origin: string,
  names: string[],
  maxResults: number | undefined,
  nextToken: string | undefined,
): { urls: string[]; next: string | undefined } {
  const max = checkMaxResults(maxResults);
  const after = nextToken === undefined ? undefined : Buffer.from(nextToken, "base64").toString("utf8");
  const remaining = after === undefined ? names : names.filter((name) => name > after);
  const chosen = remaining.slice(0, max);
  const more = maxResults !== undefined && remaining.length > max;
  return {
    urls: chosen.map((name) => state.addresses.url(origin, name)),
    next: more ? Buffer.from(chosen[chosen.length - 1]!).toString("base64") : undefined,
  };
}

/** Creating, finding, listing, inspecting, changing, emptying and deleting queues, and their tags. */
export const queueHandlers: Handlers = {
  CreateQueue(state, input, call) {
    const name = input.QueueName;
    if (!isQueueName(name))
      throw sqsError(
        "InvalidParameterValue",
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
      );
    const attributes = input.Attributes ?? {};
    const existing = state.engine.getQueueRecord(name);
    if (existing !== undefined) {
      const differs = differingAttribute(existing, attributes, state.addresses);
      if (differs !== undefined)
        throw sqsError(
          "QueueNameExists",
          `A queue already exists with the same name and a different value for attribute ${differs}`,
        );
      return { QueueUrl: state.addresses.url(call.origin, name) };
    }
    state.engine.insertQueue(newQueueRecord(name, attributes, input.tags ?? {}, attributeContext(state)));
    return { QueueUrl: state.addresses.url(call.origin, name) };
  },

  GetQueueUrl(state, input, call) {
    if (
      input.QueueOwnerAWSAccountId !== undefined &&
      input.QueueOwnerAWSAccountId !== state.addresses.accountId
    )
      throw sqsError("QueueDoesNotExist", "The specified queue does not exist.");
    if (!isQueueName(input.QueueName) || state.engine.getQueueRecord(input.QueueName) === undefined)
      throw sqsError("QueueDoesNotExist", "The specified queue does not exist.");
    return { QueueUrl: state.addresses.url(call.origin, input.QueueName) };
  },

  ListQueues(state, input, call) {
    const prefix = input.QueueNamePrefix ?? "";
    const names = state.engine
      .listQueues()
      .map((queue) => queue.name)
      .filter((name) => name.startsWith(prefix) && isQueueName(name));
    const { urls, next } = page(state, call.origin, names, input.MaxResults, input.NextToken);
    return {
      ...(urls.length > 0 ? { QueueUrls: urls } : {}),
      ...(next === undefined ? {} : { NextToken: next }),
    };
  },

  DeleteQueue(state, input) {
    state.engine.deleteQueue(state.queueOf(input.QueueUrl).name);
    return {};
  },

  GetQueueAttributes(state, input) {
    const record = state.queueOf(input.QueueUrl);
    const stats = state.engine.stats(record.name);
    const attributes = renderAttributes(record, input.AttributeNames, stats, state.addresses);
    return Object.keys(attributes).length > 0 ? { Attributes: attributes } : {};
  },

  SetQueueAttributes(state, input) {
    const record = state.queueOf(input.QueueUrl);
    state.engine.updateQueue(updatedQueueRecord(record, input.Attributes, attributeContext(state)));
    return {};
  },

  PurgeQueue(state, input) {
    state.engine.purge(state.queueOf(input.QueueUrl).name);
    return {};
  },

  ListDeadLetterSourceQueues(state, input, call) {
    const target = state.queueOf(input.QueueUrl).name;
    const names = state.engine
      .listQueues()
      .filter((queue) => queue.deadLetterQueue === target && queue.maxDeliveryCount !== null)
      .map((queue) => queue.name);
    const { urls, next } = page(state, call.origin, names, input.MaxResults, input.NextToken);
    return { queueUrls: urls, ...(next === undefined ? {} : { NextToken: next }) };
  },

  TagQueue(state, input) {
    const record = state.queueOf(input.QueueUrl);
    if (Object.keys(input.Tags ?? {}).length === 0)
      throw sqsError("MissingParameter", "The request must contain the parameter Tags.");
    state.engine.updateQueue(retagged(record, input.Tags, []));
    return {};
  },

  UntagQueue(state, input) {
    const record = state.queueOf(input.QueueUrl);
    if ((input.TagKeys ?? []).length === 0)
      throw sqsError("MissingParameter", "The request must contain the parameter TagKeys.");
    state.engine.updateQueue(retagged(record, {}, input.TagKeys));
    return {};
  },

  ListQueueTags(state, input) {
    const tags = tagsOf(state.queueOf(input.QueueUrl));
    return Object.keys(tags).length > 0 ? { Tags: tags } : {};
  },
};

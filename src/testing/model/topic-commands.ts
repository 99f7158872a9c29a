import type { ClientAdmin } from "../../core/queue-client.js";
import { type SubscriptionOptions, subscriptionPath } from "../../core/topics.js";
import { subscriptionDeadLetterQueue } from "../../rules/topic-records.js";
import { realBatchOutcome, sameEntries, type WorldCommand } from "./commands.js";
import { modelOutcome, type Outcome, realOutcome, sameOutcome, sameResult, sameValue } from "./outcome.js";
import type {
  ModelPublish,
  ModelRule,
  ModelSubscriptionOptions,
  ModelTopicOptions,
  PublishEntry,
  TopicModel,
} from "./topic-model.js";
import type { World } from "./world.js";

/** What a {@link TopicCall} does to a topic, its subscriptions or their rules. */
export type TopicStep =
  | { readonly kind: "createTopic"; readonly options: ModelTopicOptions }
  | { readonly kind: "deleteTopic" }
  | {
      readonly kind: "createSubscription";
      readonly subscription: string;
      readonly options: ModelSubscriptionOptions;
    }
  | { readonly kind: "deleteSubscription"; readonly subscription: string }
  | { readonly kind: "createRule"; readonly subscription: string; readonly rule: ModelRule }
  | { readonly kind: "deleteRule"; readonly subscription: string; readonly rule: string };

/** Creates or deletes a topic, a subscription or a rule on both sides. */
export class TopicCall implements WorldCommand {
  constructor(
    readonly topic: string,
    readonly step: TopicStep,
  ) {}
  /** Always possible (a missing or existing topic, subscription or rule is a case too). */
  check(): true {
    return true;
  }
  /** Calls on both sides, which must succeed or fail alike; then compares the topics. */
  async run(_: World, world: World): Promise<void> {
    sameOutcome(
      String(this),
      modelOutcome(() => onModel(world.topics, this.topic, this.step)),
      await realOutcome(() => onProvider(world.client.admin, this.topic, this.step)),
    );
    await compareTopics(world, this.topic, "subscription" in this.step ? this.step.subscription : undefined);
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    const { kind, ...rest } = this.step;
    return `${kind}(${this.topic}${Object.keys(rest).length === 0 ? "" : `, ${JSON.stringify(rest)}`})`;
  }
}

function onModel(topics: TopicModel, topic: string, step: TopicStep): void {
  if (step.kind === "createTopic") topics.createTopic(topic, step.options);
  else if (step.kind === "deleteTopic") topics.deleteTopic(topic);
  else if (step.kind === "createSubscription")
    topics.createSubscription(topic, step.subscription, step.options);
  else if (step.kind === "deleteSubscription") topics.deleteSubscription(topic, step.subscription);
  else if (step.kind === "createRule") topics.createRule(topic, step.subscription, step.rule);
  else topics.deleteRule(topic, step.subscription, step.rule);
}

function onProvider(admin: ClientAdmin, topic: string, step: TopicStep): Promise<unknown> {
  if (step.kind === "createTopic") return admin.createTopic(topic, step.options);
  if (step.kind === "deleteTopic") return admin.deleteTopic(topic);
  if (step.kind === "createSubscription") {
    const { rules, ...options } = step.options;
    return admin.createSubscription(topic, step.subscription, {
      ...(options as SubscriptionOptions),
      ...(rules === undefined ? {} : { rules: [...rules] }),
    });
  }
  if (step.kind === "deleteSubscription") return admin.deleteSubscription(topic, step.subscription);
  if (step.kind === "createRule")
    return admin.createRule(topic, step.subscription, step.rule.name, step.rule.filter);
  return admin.deleteRule(topic, step.subscription, step.rule);
}

/**
 * A queue command on a subscription of `topic` that exists when it runs (or on its dead-letter
 * queue): the `index`-th by name, counting round, as settles pick receipts; so it meets a
 * subscription whenever there is one. Skipped while there is none.
 */
export class OnSubscription implements WorldCommand {
  constructor(
    readonly topic: string,
    readonly index: number,
    readonly deadLetters: boolean,
    readonly make: (queue: string) => WorldCommand,
  ) {}
  /** Needs a subscription; then as the command on it says. */
  check(world: Readonly<World>): boolean {
    const command = this.#resolve(world);
    return command?.check(world) ?? false;
  }
  /** Runs the command on the subscription's queue. */
  run(model: World, world: World): Promise<void> {
    return this.#resolve(world)!.run(model, world);
  }
  #resolve(world: Readonly<World>): WorldCommand | undefined {
    const paths = world.topics.subscriptionPaths(this.topic);
    if (paths.length === 0) return undefined;
    const path = paths[this.index % paths.length]!;
    return this.make(this.deadLetters ? subscriptionDeadLetterQueue(path) : path);
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    const which = `subscription #${this.index} of ${this.topic}${this.deadLetters ? ", its dead letters" : ""}`;
    return String(this.make(`<${which}>`));
  }
}

/** Publishes one message (`publishMessage`) or a batch (`publishMessages`, split by the client past its limit). */
export class Publish implements WorldCommand {
  constructor(
    readonly topic: string,
    readonly entries: readonly Omit<ModelPublish, "body">[],
    readonly batch: boolean,
  ) {}
  /** Always possible (a missing topic is `QueueNotFound`: runs do not create queues or topics on use). */
  check(): true {
    return true;
  }
  /**
   * Publishes on both sides: which entries went and why the others did not must agree, each
   * published message has an id of its own (but for a shared deduplication id), and its copies
   * carry it (a repeated deduplication id in a queue a copy reached answers it).
   */
  async run(_: World, world: World): Promise<void> {
    const messages = this.entries.map((options) => ({ body: world.nextBody(), ...options }));
    const label = String(this);
    const model = modelOutcome(() => world.topics.publish(this.topic, messages));
    const real = await realBatchOutcome(async () =>
      this.batch
        ? world.client.publishMessages(this.topic, messages)
        : [await world.client.publishMessage(this.topic, messages[0]!)],
    );
    const both = sameOutcome(label, this.batch ? model : onlyEntry(model), real);
    if (both === undefined) return;
    sameEntries(label, both.model, both.real);
    // Which message each id was given to: Service Bus's message id is its deduplication key, so
    // messages sharing a deduplication id may share an id; any others have ids of their own.
    const holders = new Map<string, string>();
    both.real.forEach((entry, index) => {
      if (!entry.ok) return;
      const message = messages[index]!;
      const holder = message.deduplicationId ?? message.body;
      sameValue(
        `${label}: the message with id ${entry.messageId}`,
        holders.get(entry.messageId) ?? holder,
        holder,
      );
      holders.set(entry.messageId, holder);
      world.realIds.set(message.body, entry.messageId);
    });
    await comparePublished(world, this.topic);
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return this.batch
      ? `publishMessages(${this.topic}, ${JSON.stringify(this.entries)})`
      : `publishMessage(${this.topic}, ${JSON.stringify(this.entries[0])})`;
  }
}

// `publishMessage` fails with its one entry's error, where a batch would answer it per entry.
function onlyEntry(outcome: Outcome<PublishEntry[]>): Outcome<PublishEntry[]> {
  const entry = outcome.ok ? outcome.value[0] : undefined;
  return entry !== undefined && "code" in entry ? { ok: false, code: entry.code } : outcome;
}

/**
 * Compares what a topic step may change: the topics, and of `topic` its published count and
 * subscriptions and the rule names of its `subscription`. Only topic steps change them, so they
 * are compared after those (and only what a step may change), not after every step.
 */
async function compareTopics(world: World, topic: string, subscription: string | undefined): Promise<void> {
  const { topics, client } = world;
  const names = topics.topicNames();
  sameValue("topics", names, await client.admin.listTopics());
  if (!names.includes(topic)) return;
  await comparePublished(world, topic);
  const subscriptions = topics.subscriptionNames(topic);
  sameValue(`subscriptions of ${topic}`, subscriptions, await client.admin.listSubscriptions(topic));
  if (subscription !== undefined && subscriptions.includes(subscription))
    sameValue(
      `rules of ${subscriptionPath(topic, subscription)}`,
      topics.ruleNames(topic, subscription),
      (await client.admin.listRules(topic, subscription)).map((rule) => rule.name),
    );
}

/** Compares a topic's counts (subscriptions, messages published), where it exists. */
async function comparePublished(world: World, topic: string): Promise<void> {
  if (!world.topics.topicNames().includes(topic)) return;
  await sameResult(
    `stats of topic ${topic}`,
    () => world.topics.stats(topic),
    () => world.client.admin.getTopicStats(topic),
  );
}

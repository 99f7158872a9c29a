import type { SubscriptionRule } from "../../core/topics.js";
import type { SubscriptionRecord, TopicRecord } from "../../rules/topic-records.js";

/** What the catalog knows of one subscription: its record (rules as they stand) and who made each rule. */
export interface SubscriptionEntry {
  /** The id of the record that made it: two processes subscribing one name learn which won. */
  readonly id: string;
  record: SubscriptionRecord;
  /** The id of the record that made each rule, by rule name. */
  readonly ruleIds: Map<string, string>;
}

/** What the catalog knows of one topic: its record, what was published to it, its subscriptions. */
export interface TopicEntry {
  readonly id: string;
  readonly record: TopicRecord;
  /** Messages published to it since it was made, as publishers noted them. */
  published: number;
  readonly subscriptions: Map<string, SubscriptionEntry>;
}

/** The catalog records of topics: made and deleted, subscriptions, rules, and publish counts. */
export type TopicCatalogRecord =
  | { readonly kind: "topic"; readonly id: string; readonly record: TopicRecord }
  | { readonly kind: "topic-delete"; readonly name: string }
  | { readonly kind: "subscribe"; readonly id: string; readonly record: SubscriptionRecord }
  | { readonly kind: "unsubscribe"; readonly topic: string; readonly name: string }
  | {
      readonly kind: "rule";
      readonly id: string;
      readonly topic: string;
      readonly subscription: string;
      readonly rule: SubscriptionRule;
    }
  | {
      readonly kind: "rule-delete";
      readonly topic: string;
      readonly subscription: string;
      readonly name: string;
    }
  | { readonly kind: "published"; readonly topic: string; readonly id: string; readonly count: number };

/** The kinds of {@link TopicCatalogRecord}. */
const TOPIC_KINDS: ReadonlySet<string> = new Set([
  "topic",
  "topic-delete",
  "subscribe",
  "unsubscribe",
  "rule",
  "rule-delete",
  "published",
]);

/** Whether a catalog record is one of the topics'. */
export function isTopicRecord(record: { readonly kind: string }): record is TopicCatalogRecord {
  return TOPIC_KINDS.has(record.kind);
}

/**
 * The topics of one prefix, folded from the catalog stream in its one order, so every client
 * agrees: the first of two creates of a name wins (a topic, a subscription, a rule), a later one
 * is ignored; a publish count adds to the topic made by the record it names, not to one made again.
 */
export class TopicFold {
  #topics = new Map<string, TopicEntry>();

  /** Starts again from nothing (the stream is read again from its first record). */
  clear(): void {
    this.#topics = new Map();
  }

  /** The entry of `name` as folded so far. */
  get(name: string): TopicEntry | undefined {
    return this.#topics.get(name);
  }

  /** Every topic's entry as folded so far. */
  all(): TopicEntry[] {
    return [...this.#topics.values()];
  }

  /** Folds in one record. */
  fold(record: TopicCatalogRecord): void {
    switch (record.kind) {
      case "topic":
        if (!this.#topics.has(record.record.name))
          this.#topics.set(record.record.name, {
            id: record.id,
            record: record.record,
            published: 0,
            subscriptions: new Map(),
          });
        return;
      case "topic-delete":
        this.#topics.delete(record.name);
        return;
      case "subscribe": {
        const subscriptions = this.#topics.get(record.record.topic)?.subscriptions;
        if (subscriptions !== undefined && !subscriptions.has(record.record.name))
          subscriptions.set(record.record.name, {
            id: record.id,
            record: record.record,
            ruleIds: new Map(record.record.rules.map((rule) => [rule.name, record.id])),
          });
        return;
      }
      case "unsubscribe":
        this.#topics.get(record.topic)?.subscriptions.delete(record.name);
        return;
      case "rule": {
        const entry = this.#topics.get(record.topic)?.subscriptions.get(record.subscription);
        if (entry === undefined || entry.ruleIds.has(record.rule.name)) return;
        entry.ruleIds.set(record.rule.name, record.id);
        entry.record = { ...entry.record, rules: [...entry.record.rules, record.rule] };
        return;
      }
      case "rule-delete": {
        const entry = this.#topics.get(record.topic)?.subscriptions.get(record.subscription);
        if (entry === undefined) return;
        entry.ruleIds.delete(record.name);
        entry.record = {
          ...entry.record,
          rules: entry.record.rules.filter((rule) => rule.name !== record.name),
        };
        return;
      }
      case "published": {
        const entry = this.#topics.get(record.topic);
        if (entry?.id === record.id) entry.published += record.count;
      }
    }
  }
}

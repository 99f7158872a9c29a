import type { Channel } from "amqplib";
import type { SubscriptionRule } from "../../core/topics.js";
import { HEADERS } from "./message-mapping.js";
import { bindingArguments } from "./routing-headers.js";

/**
 * Declares a headers exchange (durable, idempotent): a topic's, or a subscription's. A headers
 * exchange routes a message once to each queue it reaches, however many of its bindings match,
 * which is a subscription's rules' meaning.
 */
export async function declareHeadersExchange(channel: Channel, exchange: string): Promise<void> {
  await channel.assertExchange(exchange, "headers", { durable: true });
}

/** Binds a subscription's exchange to its topic's: the binding is the rule (its name the binding key). */
export async function bindRule(
  channel: Channel,
  topicExchange: string,
  subscriptionExchange: string,
  rule: SubscriptionRule,
): Promise<void> {
  await channel.bindExchange(subscriptionExchange, topicExchange, rule.name, bindingArguments(rule.filter));
}

/** Removes the binding a rule is. */
export async function unbindRule(
  channel: Channel,
  topicExchange: string,
  subscriptionExchange: string,
  rule: SubscriptionRule,
): Promise<void> {
  await channel.unbindExchange(subscriptionExchange, topicExchange, rule.name, bindingArguments(rule.filter));
}

/**
 * Binds the broker queue that takes a subscription's copies to the subscription's exchange: every
 * message, or (for a queue of one session of a FIFO destination) the messages of that session.
 */
export async function bindDestination(
  channel: Channel,
  subscriptionExchange: string,
  brokerQueue: string,
  sessionId?: string,
): Promise<void> {
  const args: Record<string, string> = { "x-match": "all" };
  if (sessionId !== undefined) args[HEADERS.session] = sessionId;
  await channel.bindQueue(brokerQueue, subscriptionExchange, "", args);
}

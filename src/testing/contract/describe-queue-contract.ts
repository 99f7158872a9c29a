import { afterAll, afterEach, beforeEach, describe, type TestContext } from "vitest";
import { consumerCases } from "./consumers.js";
import { deadLetterCases } from "./dead-letters.js";
import { errorCases } from "./errors.js";
import { type ContractOptions, Harness, type MakeClient, resolveContractOptions } from "./harness.js";
import { loadCases } from "./load.js";
import { lockCases } from "./locks.js";
import { messageCases } from "./messages.js";
import { orderCases } from "./order.js";
import { peekCases } from "./peek.js";
import { sessionCases } from "./sessions.js";
import type { Suite } from "./suite.js";
import { topicCases } from "./topics.js";

/**
 * Declares the contract suite, C01–C64 of the shared semantics, the consumers' C65–C79 and the
 * topics' C80–C99, for one provider. Every test creates its own queues; a case is skipped only
 * when the provider lacks the capability it needs (or, for a case about its refusal, has it), and
 * the skipped ids are printed at the end.
 */
export function describeQueueContract(
  name: string,
  makeClient: MakeClient,
  options: ContractOptions = {},
): void {
  const resolved = resolveContractOptions(options);
  const skipped = new Map<string, string>();
  describe(`queue contract: ${name}`, () => {
    let harness: Harness | undefined;
    beforeEach((context) => {
      const id = /^(C\d{2,3}) /.exec(context.task.name)?.[1];
      const difference = id === undefined ? undefined : options.knownDifferences?.[id];
      if (difference !== undefined) {
        skipped.set(id!, `a known difference: ${difference}`);
        context.skip(`${name}: ${difference}`);
      }
      harness = new Harness(makeClient, resolved);
    });
    afterEach(async () => {
      await harness?.close();
      harness = undefined;
    });
    afterAll(() => {
      if (skipped.size === 0) return;
      const list = [...skipped].map(([id, why]) => `${id} (${why})`).join(", ");
      console.info(`queue contract: ${name} skipped ${list}`);
    });
    /** Ends the running test as skipped, and notes the id and why for the list printed at the end. */
    const skip = (context: TestContext, id: string, why: string, message: string): void => {
      skipped.set(id, why);
      context.skip(message);
    };
    const suite: Suite = {
      harness: () => {
        if (harness === undefined) throw new Error("the contract harness is used outside a test");
        return harness;
      },
      requires: (context, id, condition, capability) => {
        if (!condition) skip(context, id, `no ${capability}`, `${name} lacks ${capability}`);
      },
      lacks: (context, id, has, capability) => {
        if (has) skip(context, id, `has ${capability}`, `${name} has ${capability}`);
      },
    };
    messageCases(suite);
    lockCases(suite);
    deadLetterCases(suite);
    orderCases(suite);
    sessionCases(suite);
    errorCases(suite);
    loadCases(suite, resolved);
    peekCases(suite);
    consumerCases(suite);
    topicCases(suite);
  });
}

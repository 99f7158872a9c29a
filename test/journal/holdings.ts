import type { JournalStore } from "../../src/engine/journal/journal-store.js";

/** Everything a store holds, in plain values (bodies and session states as text) to compare. */
export function holdings(store: JournalStore) {
  return store.listQueues().map((queue) => {
    const contents = store.contents(queue.name)!;
    return {
      ...contents,
      messages: contents.messages.map((message) => ({
        ...message,
        body: Buffer.from(message.body).toString(),
      })),
      groups: contents.groups.map((group) => ({
        ...group,
        state: group.state === null ? null : Buffer.from(group.state).toString(),
      })),
      duplicates: Object.fromEntries(contents.duplicates),
    };
  });
}

import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { VirtualClock } from "../../../src/core/clock.js";
import { createClient, type QueueClient } from "../../../src/index.js";
import { POSTGRES_URL, useSchema } from "./database.js";

const schema = useSchema();
const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
const clock = new VirtualClock();
let client: QueueClient | undefined;
afterAll(async () => {
  await client?.close();
  await pool.end();
});

/** Every message row with its row version and locker: any write gives a row a new xmin, a row lock sets its xmax. */
async function rows(): Promise<unknown[]> {
  const found = await pool.query(
    `SELECT seq, xmin::text AS version, xmax::text AS locker, state, visible_at, delivery_count, lock_token FROM "${schema}".messages ORDER BY seq`,
  );
  return found.rows;
}

describe("postgres provider: peekMessages", () => {
  test("peeks write nothing, judge locks, delays and time to live against the clock, and leave out what expired", async () => {
    client = await createClient({
      provider: { type: "postgres", connectionString: POSTGRES_URL, schema, clock },
    });
    await client.admin.createQueue("peeked", { lockDurationMs: 10_000 });
    await client.sendMessage("peeked", "locked");
    const locked = await client.receiveMessage("peeked");
    await client.sendMessage("peeked", { body: "short-lived", timeToLiveMs: 5_000 });
    await client.sendMessage("peeked", { body: "delayed", delayMs: 20_000 });
    await client.sendMessage("peeked", "ready");
    const states = async () =>
      (await client!.admin.peekMessages("peeked", 10)).map((message) => `${message.text()}:${message.state}`);
    const before = await rows();
    const stats = await client.admin.getQueueStats("peeked");

    expect(await states()).toEqual([
      "locked:inFlight",
      "short-lived:active",
      "delayed:delayed",
      "ready:active",
    ]);
    const [first] = await client.admin.peekMessages("peeked", 1);
    expect(first?.sequenceNumber).toBe(locked?.sequenceNumber);
    expect(first?.deliveryCount).toBe(1);
    expect(await client.admin.peekMessages("peeked", 2, first?.sequenceNumber)).toHaveLength(2);
    expect(await client.admin.getQueueStats("peeked")).toEqual(stats);
    // The rows still say locked, delayed and alive; the peek reads the time, not the row's word.
    await clock.advance(20_000);
    expect(await states()).toEqual(["locked:active", "delayed:active", "ready:active"]);
    expect(await rows()).toEqual(before);
  });
});

import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { systemClock } from "../../../src/core/clock.js";
import { createClient, QueueError } from "../../../src/index.js";
import type { PgPool } from "../../../src/postgres/pg-pool.js";
import { DatabaseClock } from "../../../src/providers/postgres/database-clock.js";
import { pgFailure } from "../../../src/providers/postgres/pg-failures.js";
import { SCHEMA_VERSION } from "../../../src/providers/postgres/postgres-schema.js";
import { TableVacuum } from "../../../src/providers/postgres/table-vacuum.js";
import { rejection } from "../../../src/testing/contract/harness.js";
import { countingPool, POSTGRES_URL, useSchema } from "./database.js";

const schema = useSchema();
const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
afterAll(() => pool.end());

function expectCode(error: unknown, code: string): void {
  expect(error).toBeInstanceOf(QueueError);
  expect((error as QueueError).code).toBe(code);
}

describe("postgres provider", () => {
  test("failures of the connection are transient ConnectionFailed; lock waits are transient; the rest are not", () => {
    const code = (error: unknown) => {
      const failure = pgFailure("x", error);
      return [failure.code, failure.isTransient];
    };
    expect(code(new Error("Connection terminated unexpectedly"))).toEqual(["ConnectionFailed", true]);
    expect(code(Object.assign(new Error("terminating connection"), { code: "57P01" }))).toEqual([
      "ConnectionFailed",
      true,
    ]);
    expect(code(Object.assign(new Error("refused"), { code: "ECONNREFUSED" }))).toEqual([
      "ConnectionFailed",
      true,
    ]);
    expect(code(Object.assign(new Error("deadlock"), { code: "40P01" }))).toEqual(["Provider", true]);
    expect(code(Object.assign(new Error("bad"), { code: "22021" }))).toEqual(["Provider", false]);
    expect(code(Object.assign(new Error("lost"), { code: "QR001" }))).toEqual(["SessionLockLost", false]);
  });

  test("without a clock of its own the provider keeps the database's time, measured against this machine's", async () => {
    const ahead = 3_600_000;
    const serverAhead = {
      query: async () => ({ rows: [{ now: String(Date.now() + ahead) }], rowCount: 1 }),
    } as unknown as PgPool;
    const clock = new DatabaseClock();
    await clock.synchronize(serverAhead);
    expect(Math.abs(clock.now() - (Date.now() + ahead))).toBeLessThan(1_000);
    const client = await createClient({ provider: { type: "postgres", pool, schema } });
    try {
      await client.sendMessage("clocked", "now");
      const message = await client.receiveMessage("clocked");
      const database = await pool.query(
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now",
      );
      expect(Math.abs(message!.enqueuedAt.getTime() - Number(database.rows[0].now))).toBeLessThan(5_000);
    } finally {
      await client.close();
    }
  });

  test("the URL form takes schema and engine options out of the query and leaves the rest to node-postgres", async () => {
    const client = await createClient(
      `${POSTGRES_URL}?schema=${schema}&lockDurationMs=1500&application_name=qr-test`,
    );
    try {
      await client.admin.createQueue("url-form");
      expect((await client.admin.getQueue("url-form"))?.lockDurationMs).toBe(1_500);
      await client.sendMessage("url-form", "by url");
      const message = await client.receiveMessage("url-form");
      expect(message?.text()).toBe("by url");
      await client.completeMessage(message!.receiptHandle);
    } finally {
      await client.close();
    }
  });

  test("a config needs exactly one of connectionString and pool, and a plain schema name", async () => {
    expectCode(await rejection(createClient({ provider: { type: "postgres" } })), "Configuration");
    expectCode(
      await rejection(createClient({ provider: { type: "postgres", connectionString: POSTGRES_URL, pool } })),
      "Configuration",
    );
    expectCode(
      await rejection(
        createClient({ provider: { type: "postgres", connectionString: POSTGRES_URL, schema: 'x"; DROP' } }),
      ),
      "Configuration",
    );
  });

  test("vacuumIntervalMs comes from the URL or the object and is checked", async () => {
    const client = await createClient(`${POSTGRES_URL}?schema=${schema}&vacuumIntervalMs=0`);
    await client.close();
    expectCode(
      await rejection(createClient(`${POSTGRES_URL}?schema=${schema}&vacuumIntervalMs=soon`)),
      "Configuration",
    );
    expectCode(
      await rejection(
        createClient({
          provider: { type: "postgres", connectionString: POSTGRES_URL, schema, vacuumIntervalMs: -1 },
        }),
      ),
      "Configuration",
    );
    // Only the postgres URL knows the option.
    expectCode(await rejection(createClient("memory:?vacuumIntervalMs=5")), "Configuration");
  });

  test("a vacuum pass takes the tables whose dead rows passed the threshold, and skips while another process vacuums", async () => {
    const client = await createClient({
      provider: { type: "postgres", pool, schema, vacuumIntervalMs: 0 },
    });
    await client.admin.createQueue("churn");
    for (let round = 0; round < 15; round++) {
      await client.sendMessages(
        "churn",
        Array.from({ length: 100 }, (_, i) => `m${i}`),
      );
      const received = await client.receiveMessages("churn", 100);
      await Promise.all(received.map((message) => client.completeMessage(message.receiptHandle)));
    }
    await client.close();
    // The server counts dead rows a moment after the statements that left them.
    const deadRows = async () =>
      Number(
        (
          await pool.query<{ dead: string }>("SELECT pg_stat_get_dead_tuples($1::regclass) AS dead", [
            `"${schema}".messages`,
          ])
        ).rows[0]!.dead,
      );
    for (let tries = 0; tries < 60 && (await deadRows()) <= 1_000; tries++)
      await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await deadRows()).toBeGreaterThan(1_000);
    const vacuum = new TableVacuum(pool, schema, systemClock, 0);
    const holder = await pool.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(hashtext($1))", [`queue-runtime:vacuum:${schema}`]);
      expect(await vacuum.vacuumDue()).toEqual([]);
    } finally {
      await holder.query("SELECT pg_advisory_unlock_all()");
      holder.release();
    }
    expect(await vacuum.vacuumDue()).toEqual(["messages"]);
    expect(await vacuum.vacuumDue()).toEqual([]);
  }, 30_000);

  test("the completes and the abandons of one turn go as one statement each, and each answers on its own", async () => {
    const { pool: counting, statements } = countingPool(pool);
    const client = await createClient({ provider: { type: "postgres", pool: counting, schema } });
    try {
      await client.sendMessages("turns", ["a", "b", "c", "d", "e", "f"]);
      const received = await client.receiveMessages("turns", 6);
      expect(received.map((message) => message.text())).toEqual(["a", "b", "c", "d", "e", "f"]);
      await client.completeMessage(received[5]!.receiptHandle);
      statements.length = 0;
      const settled = await Promise.allSettled([
        ...received.slice(0, 3).map((message) => client.abandonMessage(message.receiptHandle)),
        client.abandonMessage(received[5]!.receiptHandle),
        client.completeMessage(received[3]!.receiptHandle),
        client.completeMessage(received[4]!.receiptHandle),
      ]);
      expect(settled.map((outcome) => outcome.status)).toEqual([
        "fulfilled",
        "fulfilled",
        "fulfilled",
        "rejected",
        "fulfilled",
        "fulfilled",
      ]);
      expectCode((settled[3] as PromiseRejectedResult).reason, "InvalidReceipt");
      const settling = statements.filter((text) => /abandon\(|DELETE FROM/.test(text));
      expect(settling).toHaveLength(2);
      const again = await client.receiveMessages("turns", 6);
      expect(again.map((message) => [message.text(), message.deliveryCount])).toEqual([
        ["a", 2],
        ["b", 2],
        ["c", 2],
      ]);
    } finally {
      await client.close();
    }
  });

  test("an application's pool is used as it is and stays open when the client closes", async () => {
    const client = await createClient({ provider: { type: "postgres", pool, schema } });
    await client.sendMessage("pooled", "through the application's pool");
    expect((await client.receiveMessage("pooled"))?.text()).toBe("through the application's pool");
    await client.close();
    expect((await pool.query("SELECT 1 AS one")).rows[0].one).toBe(1);
  });

  test("a schema of version 1 is migrated to the current version when a client opens it", async () => {
    const older = `${schema}_v1`;
    const first = await createClient({
      provider: { type: "postgres", connectionString: POSTGRES_URL, schema: older },
    });
    try {
      await first.admin.createQueue("kept");
      await first.sendMessage("kept", "still here");
    } finally {
      await first.close();
    }
    await pool.query(`UPDATE "${older}".schema_version SET version = 1`);
    const second = await createClient({
      provider: { type: "postgres", connectionString: POSTGRES_URL, schema: older },
    });
    try {
      expect((await second.receiveMessage("kept"))?.text()).toBe("still here");
      const version = await pool.query(`SELECT max(version) AS version FROM "${older}".schema_version`);
      expect(version.rows[0]).toEqual({ version: SCHEMA_VERSION });
    } finally {
      await second.close();
      await pool.query(`DROP SCHEMA "${older}" CASCADE`);
    }
  });

  test("clients starting at once on a new schema migrate it once", async () => {
    const fresh = `${schema}_m`;
    const clients = await Promise.all(
      Array.from({ length: 4 }, () =>
        createClient({ provider: { type: "postgres", connectionString: POSTGRES_URL, schema: fresh } }),
      ),
    );
    try {
      await Promise.all(clients.map((client, i) => client.admin.createQueue(`q${i}`)));
      expect(await clients[0]!.admin.listQueues("q")).toEqual([
        "q0",
        "q0-dlq",
        "q1",
        "q1-dlq",
        "q2",
        "q2-dlq",
        "q3",
        "q3-dlq",
      ]);
      const version = await pool.query(
        `SELECT count(*)::int AS rows, max(version) AS version FROM "${fresh}".schema_version`,
      );
      expect(version.rows[0]).toEqual({ rows: 1, version: SCHEMA_VERSION });
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await pool.query(`DROP SCHEMA "${fresh}" CASCADE`);
    }
  });

  test("a connection the server ends is a transient ConnectionFailed, and the client's retry goes through", async () => {
    const client = await createClient({
      provider: {
        type: "postgres",
        connectionString: `${POSTGRES_URL}?application_name=qr-terminated`,
        schema,
      },
      retryPolicy: { maxAttempts: 3, initialDelayMs: 20 },
    });
    try {
      await client.sendMessage("terminated", "before");
      await pool.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'qr-terminated'",
      );
      await client.sendMessage("terminated", "after");
      const bodies = (await client.receiveMessages("terminated", 10)).map((message) => message.text());
      expect(bodies).toEqual(["before", "after"]);
      expect(client.metrics.retries).toBeGreaterThanOrEqual(0);
    } finally {
      await client.close();
    }
  });
});

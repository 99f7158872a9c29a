// `queue-runtime deliveries list | retry | dismiss`, run as a child process (from the sources,
// through tsx) against a store a real Receiver has filled, on both stores.
import type { ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveriesCommand } from "../../src/cli/deliveries-command.js";
import { createClient, type QueueClient } from "../../src/index.js";
import {
  type DeliveryItem,
  defineEvent,
  Receiver,
  type StandardIssue,
  type StandardSchemaV1,
} from "../../src/receiving/index.js";
import { type Ran, runToEnd } from "../support/finished-process.js";
import { postgresKind, STORE_KINDS, sqliteFile, sqliteKind, type TestStore } from "./stores.js";

/** In a field the schema refuses, and in the subscriber's error message: never to be printed. */
const SECRET = "SECRET-7f3a-4111111111111111";
/** The body of a message that is not JSON: its bytes are never to be printed either. */
const NOT_JSON = "not json: BODY-BYTES-9c2e";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Runs `queue-runtime <args>` as cli-process.ts does, with stdout and stderr apart and QUEUE_RECEIVING only as given. */
function cli(args: readonly string[], env: Record<string, string> = {}): Promise<Ran> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== "QUEUE_RECEIVING"),
  );
  return runToEnd(["--import", "tsx", "src/cli/main.ts", ...args], {
    env: { ...inherited, ...env },
    children,
  });
}

const lines = (text: string) => text.split("\n").filter((line) => line.length > 0);

/** One line on stderr naming the problem, nothing on stdout, no stack trace. */
function expectOneErrorLine(ran: Ran, says: string | RegExp): void {
  expect(lines(ran.stderr)).toHaveLength(1);
  if (typeof says === "string") expect(ran.stderr).toContain(says);
  else expect(ran.stderr).toMatch(says);
  expect(ran.stderr).not.toMatch(/\n\s+at /);
  expect(ran.stdout).toBe("");
}

/** Orders need an `orderId` of the form `o-<n>`; the issue's message quotes the value, as many validators' do. */
const orderSchema: StandardSchemaV1<unknown, { orderId: string }> = {
  "~standard": {
    version: 1,
    vendor: "cli-test",
    validate(value) {
      const orderId = (value as { orderId?: unknown } | null)?.orderId;
      if (typeof orderId === "string" && /^o-\d+$/.test(orderId)) return { value: { orderId } };
      const issue: StandardIssue & { code: string } = {
        message: `orderId ${String(orderId)} is not o-<n>`,
        path: ["orderId"],
        code: "pattern",
      };
      return { issues: [issue] };
    },
  },
};
const OrderShipped = defineEvent("OrderShipped", { wireName: "order_shipped", schema: orderSchema });

const BODIES = {
  unlisted: JSON.stringify({ id: "u-1", type: "order_cancelled", orderId: "o-9" }),
  notJson: NOT_JSON,
  refused: JSON.stringify({ id: "r-1", type: "order_shipped", orderId: SECRET }),
  event: JSON.stringify({ id: "e-1", type: "order_shipped", orderId: "o-1" }),
};

/** The four items a tick leaves, found in `receiver.deliveries.list()`. */
interface Items {
  readonly unlisted: DeliveryItem;
  readonly notJson: DeliveryItem;
  readonly refused: DeliveryItem;
  readonly delivery: DeliveryItem;
}

let namespace = 0;

/** A receiver on `test` with a `billing` subscriber that always fails, ticked once over the four bodies. */
async function filled(test: TestStore): Promise<{ receiver: Receiver; client: QueueClient; items: Items }> {
  const client = await createClient({ provider: { type: "memory", name: `cli-${namespace++}` } });
  const failures: unknown[] = [];
  const receiver = new Receiver({
    store: test.store,
    queues: [
      {
        name: "warehouse_queue",
        client,
        queue: "warehouse",
        idAt: "id",
        typeAt: "type",
        events: [OrderShipped],
      },
    ],
    subscribers: [
      {
        name: "billing",
        events: [OrderShipped],
        retryPolicy: { maxAttempts: 1 },
        handle: () => {
          throw Object.assign(new Error(`card declined: ${SECRET}`), { code: "CardDeclined" });
        },
      },
    ],
    onError: (error) => failures.push(error),
  });
  await client.sendMessages("warehouse", Object.values(BODIES));
  await receiver.tick();
  expect(failures).toEqual([]);
  const listed = await receiver.deliveries.list();
  expect(listed).toHaveLength(4);
  const find = (test: (item: DeliveryItem) => boolean) => listed.find(test)!;
  const items: Items = {
    unlisted: find((item) => item.reason === "unlisted_type"),
    notJson: find((item) => item.problems?.[0]?.rule === "json"),
    refused: find((item) => item.problems?.[0]?.field === "orderId"),
    delivery: find((item) => item.kind === "delivery"),
  };
  expect(Object.values(items).every((item) => item !== undefined)).toBe(true);
  return { receiver, client, items };
}

describe.each(STORE_KINDS)("queue-runtime deliveries on the $name store", (kind) => {
  let test: TestStore;
  let receiver: Receiver;
  let client: QueueClient;
  let items: Items;
  /** The runs that change nothing, started together once the store is filled. */
  let reads: {
    list: Promise<Ran>;
    fromEnv: Promise<Ran>;
    json: Promise<Ran>;
    body: Promise<Ran>;
    unknownRetry: Promise<Ran>;
    unknownDismiss: Promise<Ran>;
  };

  beforeAll(async () => {
    test = await kind.make();
    ({ receiver, client, items } = await filled(test));
    const at = test.location;
    reads = {
      // --receiving wins over QUEUE_RECEIVING, which names no store here.
      list: cli(["deliveries", "list", "--receiving", at], { QUEUE_RECEIVING: sqliteFile() }),
      fromEnv: cli(["deliveries", "list"], { QUEUE_RECEIVING: at }),
      json: cli(["deliveries", "--json", "--receiving", at, "list"]),
      body: cli(["deliveries", "list", "--body", "--receiving", at, "--json"]),
      unknownRetry: cli(["deliveries", "retry", "p-999999", "--receiving", at]),
      unknownDismiss: cli(["deliveries", "--receiving", at, "dismiss", "d-999999"]),
    };
    await Promise.all(Object.values(reads));
  }, 60_000);

  afterAll(async () => {
    await receiver?.stop();
    await client?.close();
  });

  it("lists a line per item (id, failed, label, reason, tab-separated), no header, and exits 0", async () => {
    const ran = await reads.list;
    expect(ran.code).toBe(0);
    expect(ran.stderr).toBe("");
    const printed = lines(ran.stdout).map((line) => line.split("\t"));
    const listed = [items.unlisted, items.notJson, items.refused, items.delivery];
    expect(printed).toHaveLength(listed.length);
    expect(printed).toEqual(
      expect.arrayContaining(listed.map((item) => [item.id, "failed", item.label, item.reason])),
    );
    expect(printed).toEqual(
      expect.arrayContaining([
        [items.unlisted.id, "failed", "queue warehouse_queue · order_cancelled", "unlisted_type"],
        [items.notJson.id, "failed", "queue warehouse_queue", "unreadable"],
        [items.refused.id, "failed", "queue warehouse_queue · OrderShipped", "unreadable"],
        [items.delivery.id, "failed", "subscriber billing · OrderShipped", "CardDeclined"],
      ]),
    );
    expect(items.delivery.id).toMatch(/^d-\d+$/);
    expect(items.unlisted.id).toMatch(/^p-\d+$/);
  });

  it("reads the store from QUEUE_RECEIVING when --receiving is not given", async () => {
    const ran = await reads.fromEnv;
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe((await reads.list).stdout);
  });

  it("prints one JSON array with --json: id, kind, status, label, reason, and problems for parked messages; no body", async () => {
    const ran = await reads.json;
    expect(ran.code).toBe(0);
    const printed = JSON.parse(ran.stdout) as Record<string, unknown>[];
    expect(printed).toHaveLength(4);
    const byId = new Map(printed.map((item) => [item.id, item]));
    expect(byId.get(items.refused.id)).toEqual({
      id: items.refused.id,
      kind: "parked",
      status: "failed",
      label: "queue warehouse_queue · OrderShipped",
      reason: "unreadable",
      problems: [{ field: "orderId", rule: "pattern" }],
    });
    expect(byId.get(items.notJson.id)).toEqual({
      id: items.notJson.id,
      kind: "parked",
      status: "failed",
      label: "queue warehouse_queue",
      reason: "unreadable",
      problems: [{ field: "", rule: "json" }],
    });
    expect(byId.get(items.unlisted.id)).toEqual({
      id: items.unlisted.id,
      kind: "parked",
      status: "failed",
      label: "queue warehouse_queue · order_cancelled",
      reason: "unlisted_type",
      problems: [],
    });
    expect(byId.get(items.delivery.id)).toEqual({
      id: items.delivery.id,
      kind: "delivery",
      status: "failed",
      label: "subscriber billing · OrderShipped",
      reason: "CardDeclined",
    });
  });

  it("adds each parked message's body, base64, as bodyBase64 only with --body", async () => {
    const ran = await reads.body;
    expect(ran.code).toBe(0);
    const printed = JSON.parse(ran.stdout) as { id: string; bodyBase64?: string }[];
    const bodies = Object.fromEntries(printed.map((item) => [item.id, item.bodyBase64]));
    const decoded = (id: string) => Buffer.from(bodies[id] ?? "", "base64").toString("utf8");
    expect(decoded(items.unlisted.id)).toBe(BODIES.unlisted);
    expect(decoded(items.notJson.id)).toBe(BODIES.notJson);
    expect(decoded(items.refused.id)).toBe(BODIES.refused);
    expect(bodies[items.delivery.id]).toBeUndefined();
  });

  it("never prints a body, a refused value or a subscriber's error message without --body", async () => {
    for (const ran of [await reads.list, await reads.fromEnv, await reads.json]) {
      const printed = ran.stdout + ran.stderr;
      expect(printed).not.toContain(SECRET);
      expect(printed).not.toContain("BODY-BYTES");
      expect(printed).not.toContain("card declined");
      expect(printed).not.toContain('"id":"u-1"');
      expect(printed).not.toContain(Buffer.from(BODIES.refused).toString("base64").slice(0, 24));
      expect(printed).not.toContain("bodyBase64");
    }
  });

  it("exits 1 with one line on stderr for an id that is not listed", async () => {
    const retry = await reads.unknownRetry;
    expect(retry.code).toBe(1);
    expectOneErrorLine(retry, '"p-999999"');
    const dismiss = await reads.unknownDismiss;
    expect(dismiss.code).toBe(1);
    expectOneErrorLine(dismiss, '"d-999999"');
  });

  it("shows a table with a header and aligned columns on a terminal", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await deliveriesCommand(
      ["list", "--receiving", test.location],
      { out: (line) => out.push(line), err: (line) => err.push(line), isTTY: true },
      {},
    );
    expect(code).toBe(0);
    expect(err).toEqual([]);
    expect(out).toHaveLength(5);
    const [header, ...rows] = out as [string, ...string[]];
    expect(header).toMatch(/^ID +STATUS +LABEL +REASON +PROBLEMS$/);
    for (const column of ["STATUS", "LABEL", "REASON"]) {
      const at = header.indexOf(column);
      for (const row of rows) expect(row.slice(at - 2, at)).toBe("  ");
    }
    for (const row of rows) {
      expect(row.slice(header.indexOf("STATUS"))).toMatch(/^failed /);
      expect(row).toBe(row.trimEnd());
    }
    const refused = rows.find((row) => row.startsWith(`${items.refused.id} `))!;
    expect(refused.slice(header.indexOf("LABEL"))).toMatch(
      /^queue warehouse_queue · OrderShipped +unreadable/,
    );
    expect(refused).toContain("orderId: pattern");
    expect(out.join("\n")).not.toContain(SECRET);
  });

  it("retries and dismisses, one confirmation line each, and the items leave the list", async () => {
    const at = test.location;
    const [retried, retriedDelivery, dismissed] = await Promise.all([
      cli(["deliveries", "retry", "--receiving", at, items.unlisted.id]),
      cli(["deliveries", "--receiving", at, "retry", items.delivery.id]),
      cli(["deliveries", "dismiss", items.notJson.id, "--receiving", at]),
    ]);
    expect(retried).toEqual({
      code: 0,
      stdout: `retried ${items.unlisted.id}: the next tick reads it again\n`,
      stderr: "",
    });
    expect(retriedDelivery).toEqual({
      code: 0,
      stdout: `retried ${items.delivery.id}: the next tick delivers it again\n`,
      stderr: "",
    });
    expect(dismissed).toEqual({
      code: 0,
      stdout: `dismissed ${items.notJson.id}: deleted 30 days from now\n`,
      stderr: "",
    });
    const after = await cli(["deliveries", "list", "--receiving", at]);
    expect(after.code).toBe(0);
    expect(lines(after.stdout).map((line) => line.split("\t")[0])).toEqual([items.refused.id]);
    expect((await receiver.deliveries.list()).map((item) => item.id)).toEqual([items.refused.id]);
    // Retried, they are pending: the receiver takes them up again (and the subscriber fails again).
    await receiver.tick();
    const again = await receiver.deliveries.list();
    expect(again.map((item) => item.reason).sort()).toEqual(["CardDeclined", "unlisted_type", "unreadable"]);
    expect(again.map((item) => item.id)).not.toContain(items.notJson.id);
  }, 30_000);

  it("lists nothing and exits 0 for an empty store, with its table prefix given", async () => {
    const empty = await kind.make({ tablePrefix: "ops_" });
    await empty.store.open();
    const ran = await cli(["deliveries", "list", "--table-prefix", "ops_", "--receiving", empty.location]);
    expect(ran).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});

describe("queue-runtime deliveries, refusing", () => {
  it("exits 2 with one line naming the problem for bad usage", async () => {
    const at = sqliteFile();
    const [subcommand, option, noStore, noId, nothing, extra, bodyAlone] = await Promise.all([
      cli(["deliveries", "frobnicate", "--receiving", at]),
      cli(["deliveries", "list", "--receiving", at, "--colour", "red"]),
      cli(["deliveries", "list"]),
      cli(["deliveries", "retry", "--receiving", at]),
      cli(["deliveries"]),
      cli(["deliveries", "dismiss", "p-1", "p-2", "--receiving", at]),
      cli(["deliveries", "list", "--body", "--receiving", at]),
    ]);
    const cases: [Ran, string][] = [
      [subcommand, 'unknown subcommand "frobnicate"'],
      [option, "Unknown option '--colour'"],
      [noStore, "--receiving"],
      [noId, "retry needs the id"],
      [nothing, "list, retry <id> or dismiss <id>"],
      [extra, '"p-2"'],
      [bodyAlone, "--body goes with list --json"],
    ];
    for (const [ran, says] of cases) {
      expect(ran.code).toBe(2);
      expectOneErrorLine(ran, says);
    }
    expect(existsSync(at)).toBe(false);
  }, 30_000);

  it("still exits 2 for an unknown command, and lists deliveries in --help", async () => {
    const [unknown, help, usage] = await Promise.all([
      cli(["frobnicate"]),
      cli(["--help"]),
      cli(["deliveries", "--help"]),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}deliveries +list, retry and dismiss/m);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toContain("Usage: queue-runtime deliveries <list | retry <id> | dismiss <id>>");
    for (const option of ["--receiving", "--table-prefix", "--json", "--body"])
      expect(usage.stdout).toContain(option);
  }, 30_000);

  it("exits 1 for a SQLite path with no receiving store, and creates none", async () => {
    const missing = sqliteFile();
    const prefixed = await sqliteKind.make({ tablePrefix: "ops_" });
    await prefixed.store.open();
    const notADatabase = sqliteFile();
    writeFileSync(notADatabase, "not a database\n".repeat(100));
    const [absent, otherPrefix, garbage] = await Promise.all([
      cli(["deliveries", "list", "--receiving", missing]),
      cli(["deliveries", "list", "--receiving", prefixed.location]),
      cli(["deliveries", "retry", "p-1", "--receiving", notADatabase]),
    ]);
    expect(absent.code).toBe(1);
    expectOneErrorLine(absent, `no receiving store is at ${missing}`);
    expect(existsSync(missing)).toBe(false);
    expect(otherPrefix.code).toBe(1);
    expectOneErrorLine(otherPrefix, "it has no qr_receiving_schema table");
    expect(garbage.code).toBe(1);
    expectOneErrorLine(garbage, "file is not a database");
  }, 30_000);

  it("never prints the password of a postgres URL, and takes postgresql:// too", async () => {
    const password = "pw-Zq81-hunter2";
    const empty = await postgresKind.make();
    await empty.store.open();
    const url = new URL(empty.location);
    url.password = password;
    const reachable = url.toString().replace(/^postgres:/, "postgresql:");
    const unreachable = `postgres://operator:${password}@127.0.0.1:1/test`;
    const [listed, refused] = await Promise.all([
      cli(["deliveries", "list", "--json", "--receiving", reachable]),
      cli(["deliveries", "list", "--receiving", unreachable]),
    ]);
    expect(listed).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
    expect(refused.code).toBe(1);
    expectOneErrorLine(refused, "PostgreSQL 127.0.0.1:1/test");
    expect(refused.stderr).not.toContain(password);
    expect(refused.stderr).not.toContain("operator:");
  }, 30_000);
});

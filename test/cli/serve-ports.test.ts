// `queue-runtime serve --servicebus` binds every port before it announces any: a busy AMQP or
// admin port fails the start with nothing said to listen, and the ports it had bound are free
// again. The ports are held by the test's own listeners, and 5672 by RabbitMQ.
import { type AddressInfo, createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "../../src/cli/serve-command.js";
import { MemoryStore } from "../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import { QueueError } from "../../src/index.js";
import { ServiceBusServer } from "../../src/server/servicebus/servicebus-server.js";
import { rejection } from "../../src/testing/contract/harness.js";

const held: Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A port on 127.0.0.1 that this test holds until it ends. */
async function busyPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/** A port free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether `port` on 127.0.0.1 can be listened on now. */
async function bindable(port: number): Promise<boolean> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (bound) await new Promise((resolve) => server.close(resolve));
  return bound;
}

/** Runs `serve --memory --servicebus` with `ports`; resolves what it printed and how it failed. */
async function failedServe(ports: string[]): Promise<{ lines: string[]; error: unknown }> {
  const lines: string[] = [];
  const error = await serve(["--memory", "--servicebus", ...ports], (line) => lines.push(line)).then(
    async (handle) => {
      await handle?.stop();
      return undefined;
    },
    (thrown: unknown) => thrown,
  );
  return { lines, error };
}

describe("serve --servicebus on a busy port", { timeout: 30_000 }, () => {
  it("a busy AMQP port fails before the SQS endpoint is announced, without the RabbitMQ hint off 5672, and frees the SQS port", async () => {
    const [amqp, sqs] = [await busyPort(), await freePort()];
    const { lines, error } = await failedServe([
      "--port",
      String(sqs),
      "--amqp-port",
      String(amqp),
      "--admin-port",
      "0",
    ]);
    expect(QueueError.is(error, "Configuration")).toBe(true);
    expect((error as Error).message).toContain(`port ${amqp}`);
    expect((error as Error).message).toContain("--amqp-port");
    expect((error as Error).message).not.toContain("RabbitMQ");
    expect(lines).toEqual([]);
    expect(await bindable(sqs)).toBe(true);
  });

  it("a busy admin port fails before anything is announced, naming --admin-port, and frees the ports bound before it", async () => {
    const [admin, sqs, amqp] = [await busyPort(), await freePort(), await freePort()];
    const { lines, error } = await failedServe([
      "--port",
      String(sqs),
      "--amqp-port",
      String(amqp),
      "--admin-port",
      String(admin),
    ]);
    expect(QueueError.is(error, "Configuration")).toBe(true);
    expect((error as Error).message).toContain(`${admin}`);
    expect((error as Error).message).toContain("--admin-port");
    expect(lines).toEqual([]);
    expect(await bindable(sqs)).toBe(true);
    expect(await bindable(amqp)).toBe(true);
  });

  it("names RabbitMQ only for a busy 5672 (RabbitMQ holds it on every machine of this project and CI)", async () => {
    const atRabbit = await rejection(
      ServiceBusServer.start({
        engine: new QueueEngine(new MemoryStore()),
        port: 5672,
        sasKey: null,
        createQueues: true,
      }),
    );
    expect((atRabbit as Error).message).toContain("RabbitMQ listens on 5672");
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const port = (held.address() as AddressInfo).port;
    try {
      const elsewhere = await rejection(
        ServiceBusServer.start({
          engine: new QueueEngine(new MemoryStore()),
          port,
          sasKey: null,
          createQueues: true,
        }),
      );
      expect((elsewhere as Error).message).toBe(
        `port ${port} on 127.0.0.1 is already in use; choose another with --amqp-port (0 picks a free one)`,
      );
    } finally {
      await new Promise((resolve) => held.close(resolve));
    }
  });

  it("with every port free, the SQS and Service Bus endpoints are announced together", async () => {
    const lines: string[] = [];
    const handle = await serve(
      ["--memory", "--port", "0", "--servicebus", "--amqp-port", "0", "--admin-port", "0"],
      (line) => lines.push(line),
    );
    await handle?.stop();
    expect(lines[0]).toMatch(/^queue-runtime SQS endpoint listening on /);
    expect(
      lines.some((line) => line.startsWith("queue-runtime Service Bus endpoint (AMQP 1.0) listening on")),
    ).toBe(true);
  });
});

// `queue-runtime serve --servicebus` binds every port before it announces any: a busy AMQP or
// admin port fails the start with nothing said to listen, and the ports it had bound are free
// again. The ports are held by the test's own listeners (never 5672, which RabbitMQ may hold).
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "../../src/cli/serve-command.js";
import { portError } from "../../src/cli/servicebus-serve.js";
import { QueueError } from "../../src/index.js";

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

  it("the RabbitMQ hint is kept for 5672 only", () => {
    const busy = (port: number) =>
      new QueueError(
        "Configuration",
        `port ${port} on 127.0.0.1 is already in use (RabbitMQ listens on 5672 on many machines); choose another with --amqp-port (0 picks a free one)`,
      );
    expect(portError(busy(5672), "--amqp-port", 5672).message).toContain("RabbitMQ listens on 5672");
    expect(portError(busy(5673), "--amqp-port", 5673).message).toBe(
      "port 5673 on 127.0.0.1 is already in use; choose another with --amqp-port (0 picks a free one)",
    );
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

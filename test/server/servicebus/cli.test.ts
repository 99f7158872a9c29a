import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListQueuesCommand, SQSClient } from "@aws-sdk/client-sqs";
import { ServiceBusClient } from "@azure/service-bus";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { QUICK } from "./harness.js";
import { serve, stopServed } from "./serve-process.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-servicebus-cli-"));
afterEach(stopServed);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("queue-runtime serve --servicebus", () => {
  it("prints the emulator-style connection string and serves both protocols over one store", async () => {
    const running = serve([
      "--servicebus",
      "--memory",
      "--port",
      "0",
      "--amqp-port",
      "0",
      "--admin-port",
      "0",
    ]);
    const { connectionString, sqs } = await running.started;
    expect(connectionString).toMatch(
      /^Endpoint=sb:\/\/localhost:\d+;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true$/,
    );
    const client = new ServiceBusClient(connectionString, QUICK);
    await client.createSender("shared").sendMessages({ body: "over AMQP" });
    const sqsClient = new SQSClient({
      endpoint: sqs,
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      maxAttempts: 1,
    });
    expect(
      (await sqsClient.send(new ListQueuesCommand({}))).QueueUrls?.some((url) => url.endsWith("/shared")),
    ).toBe(true);
    const [message] = await client.createReceiver("shared").receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    expect(message!.body).toBe("over AMQP");
    await client.close();
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
  });

  it("takes its queues from the emulator's Config.json, and only those", async () => {
    const config = join(directory, "Config.json");
    writeFileSync(
      config,
      `{
  "UserConfig": {
    "Namespaces": [
      {
        "Name": "sbemulatorns",
        "Queues": [
          // A comment, as the official sample has.
          { "Name": "queue.1", "Properties": { "LockDuration": "PT1M", "MaxDeliveryCount": 3, "RequiresSession": false } }
        ],
        "Topics": [
          {
            "Name": "topic.1",
            "Subscriptions": [
              { "Name": "eu", "Rules": [{ "Name": "eu", "Properties": { "FilterType": "Sql", "SqlFilter": { "SqlExpression": "region = 'eu'" } } }] }
            ]
          }
        ]
      }
    ]
  },
  "Logging": { "Type": "File" }
}`,
    );
    const running = serve([
      "--servicebus",
      "--no-sqs",
      "--memory",
      "--amqp-port",
      "0",
      "--admin-port",
      "0",
      "--config",
      config,
    ]);
    const { connectionString, sqs } = await running.started;
    expect(sqs).toBeUndefined();
    expect(running.output()).toContain("1 queues from");
    expect(running.output()).toContain("1 topics (1 created, 1 subscriptions created)");
    const client = new ServiceBusClient(connectionString, QUICK);
    await client.createSender("queue.1").sendMessages({ body: "configured" });
    await client.createSender("topic.1").sendMessages([
      { body: "eu order", applicationProperties: { region: "eu" } },
      { body: "us order", applicationProperties: { region: "us" } },
    ]);
    const received = await client
      .createReceiver("topic.1", "eu")
      .receiveMessages(2, { maxWaitTimeInMs: 2_000 });
    expect(received.map((message) => message.body)).toEqual(["eu order"]);
    await expect(client.createSender("unlisted").sendMessages({ body: "x" })).rejects.toMatchObject({
      code: "MessagingEntityNotFound",
    });
    await client.close();
  });

  it("a port in use, flags without --servicebus and a bad Config.json end with one line naming the problem", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const taken = serve([
      "--servicebus",
      "--memory",
      "--port",
      "0",
      "--amqp-port",
      String(port),
      "--admin-port",
      "0",
    ]);
    expect(await taken.exited).toBe(1);
    expect(taken.output()).toMatch(new RegExp(`port ${port} .* already in use.*--amqp-port`));
    expect(taken.output()).not.toMatch(/\n\s+at /);
    blocker.close();
    const stray = serve(["--memory", "--amqp-port", "0"]);
    expect(await stray.exited).toBe(2);
    expect(stray.output()).toContain("--amqp-port is a Service Bus option: add --servicebus");
    const bad = join(directory, "bad.json");
    writeFileSync(
      bad,
      `{"UserConfig": {"Namespaces": [{"Name": "ns", "Queues": [{"Name": "q", "Properties": {"LockDuration": "soon"}}]}]}}`,
    );
    const broken = serve([
      "--servicebus",
      "--memory",
      "--port",
      "0",
      "--amqp-port",
      "0",
      "--admin-port",
      "0",
      "--config",
      bad,
    ]);
    expect(await broken.exited).toBe(1);
    expect(broken.output()).toMatch(/bad\.json: queue "q": LockDuration "soon"/);
    expect(broken.output()).not.toMatch(/\n\s+at /);
  });
});

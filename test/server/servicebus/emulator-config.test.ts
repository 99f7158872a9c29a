import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { FOREVER_DURATION, formatIsoDuration, parseIsoDuration } from "../../../src/azure/iso-duration.js";
import { QueueError } from "../../../src/core/errors.js";
import type { EngineMessage } from "../../../src/engine/delivery.js";
import { MemoryStore } from "../../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import {
  applyEmulatorConfig,
  parseEmulatorConfig,
  readEmulatorConfig,
} from "../../../src/server/servicebus/emulator-config.js";
import { AZURE_QUEUE_DEFAULTS } from "../../../src/server/servicebus/queue-description.js";
import { outgoingMessage } from "../../support/outgoing-message.js";

// The official emulator's sample, as published (Azure/azure-service-bus-emulator-installer,
// ServiceBus-Emulator/Config/Config.json), its `//` comments included.
const OFFICIAL_SAMPLE = `{
  "UserConfig": {
    "Namespaces": [
      {
        "Name": "sbemulatorns",
        "Queues": [
          {
            "Name": "queue.1",
            "Properties": {
              "DeadLetteringOnMessageExpiration": false,
              "DefaultMessageTimeToLive": "PT1H",
              "DuplicateDetectionHistoryTimeWindow": "PT20S",
              "ForwardDeadLetteredMessagesTo": "",
              "ForwardTo": "",
              "LockDuration": "PT1M",
              "MaxDeliveryCount": 3,
              "RequiresDuplicateDetection": false,
              "RequiresSession": false
            }
          }
        ],

        "Topics": [
          {
            "Name": "topic.1",
            "Properties": {
              "DefaultMessageTimeToLive": "PT1H",
              "DuplicateDetectionHistoryTimeWindow": "PT20S",
              "RequiresDuplicateDetection": false
            },
            "Subscriptions": [
              {
                "Name": "subscription.1",
                "Properties": {
                  "DeadLetteringOnMessageExpiration": false,
                  "DefaultMessageTimeToLive": "PT1H",
                  "LockDuration": "PT1M",
                  "MaxDeliveryCount": 3,
                  "ForwardDeadLetteredMessagesTo": "",
                  "ForwardTo": "",
                  "RequiresSession": false
                },
                "Rules": [
                  {
                    "Name": "app-prop-filter-1",
                    "Properties": {
                      "FilterType": "Correlation",
                      "CorrelationFilter": {
                        "ContentType": "application/json"
                        // Other supported properties
                        // "CorrelationId": "id1",
                        // "Label": "subject1",
                        // "MessageId": "msgid1",
                        // "ReplyTo": "someQueue",
                        // "ReplyToSessionId": "sessionId",
                        // "SessionId": "session1",
                        // "To": "xyz"
                      }
                    }
                  }
                ]
              },
              {
                "Name": "subscription.4",
                "Properties": {
                  "DeadLetteringOnMessageExpiration": false,
                  "DefaultMessageTimeToLive": "PT1H",
                  "LockDuration": "PT1M",
                  "MaxDeliveryCount": 3,
                  "ForwardDeadLetteredMessagesTo": "",
                  "ForwardTo": "",
                  "RequiresSession": false
                },
                "Rules": [
                  {
                    "Name": "sql-filter-1",
                    "Properties": {
                      "FilterType": "Sql",
                      "SqlFilter": {
                        "SqlExpression": "sys.MessageId = '123456' AND userProp1 = 'value1'"
                      },
                      "Action" : {
                        "SqlExpression": "SET sys.To = 'Entity'"
                      }
                    }
                  }
                ]
              }
            ]
          }
        ]
      }
    ],
    "Logging": {
      "Type": "File"
    }
  }
}`;

/** A config of these queues (name and Properties) in the official format. */
function configOf(queues: readonly unknown[], topics: readonly unknown[] = []): string {
  return JSON.stringify({
    UserConfig: {
      Namespaces: [{ Name: "sbemulatorns", Queues: queues, Topics: topics }],
      Logging: { Type: "File" },
    },
  });
}

/** The Configuration error parsing `text` fails with. */
function configError(text: string): QueueError {
  try {
    parseEmulatorConfig(text, "Config.json");
  } catch (error) {
    if (QueueError.is(error, "Configuration")) return error;
    throw error;
  }
  throw new Error("expected the config to be refused");
}

function message(body: string, sessionId?: string): EngineMessage {
  return outgoingMessage(body, { sessionId });
}

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-sb-config-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("ISO-8601 durations as Azure writes them", () => {
  it("parses Azure's durations to milliseconds, forever to null", () => {
    expect(parseIsoDuration("PT1M")).toBe(60_000);
    expect(parseIsoDuration("P14D")).toBe(14 * 86_400_000);
    expect(parseIsoDuration("PT0.5S")).toBe(500);
    expect(parseIsoDuration("PT20S")).toBe(20_000);
    expect(parseIsoDuration("P1DT2H3M4.567S")).toBe(93_784_567);
    expect(parseIsoDuration("PT0S")).toBe(0);
    expect(parseIsoDuration("PT0.0004S")).toBe(0);
    expect(parseIsoDuration("PT0.0005S")).toBe(1);
    // As .NET's XmlConvert counts them: a year is 365 days, a month 30.
    expect(parseIsoDuration("P1Y")).toBe(365 * 86_400_000);
    expect(parseIsoDuration("P1M")).toBe(30 * 86_400_000);
    expect(parseIsoDuration("P13M")).toBe(395 * 86_400_000);
    expect(parseIsoDuration(FOREVER_DURATION)).toBeNull();
    expect(parseIsoDuration(" PT1H ")).toBe(3_600_000);
  });

  it("refuses other text, naming it and what it was for", () => {
    for (const bad of ["", "P", "PT", "1M", "PT1.5M", "P1W", "-PT1M", "PT1H1H", "pt1m", "P1DT", "PT5X"]) {
      expect(() => parseIsoDuration(bad, { what: "LockDuration" })).toThrow(
        new QueueError(
          "Validation",
          `LockDuration ${JSON.stringify(bad)} is not an ISO-8601 duration (like PT1M, P14D or PT0.5S)`,
        ),
      );
    }
    const tooLong = (() => {
      try {
        parseIsoDuration("P10675200D", { code: "Configuration" });
      } catch (error) {
        return error;
      }
    })();
    expect(tooLong).toBeInstanceOf(QueueError);
    expect((tooLong as QueueError).code).toBe("Configuration");
    expect((tooLong as QueueError).message).toContain('"P10675200D" is longer than');
  });

  it("formats milliseconds as XmlConvert does, and reads back what it writes", () => {
    expect(formatIsoDuration(60_000)).toBe("PT1M");
    expect(formatIsoDuration(14 * 86_400_000)).toBe("P14D");
    expect(formatIsoDuration(500)).toBe("PT0.5S");
    expect(formatIsoDuration(1)).toBe("PT0.001S");
    expect(formatIsoDuration(0)).toBe("PT0S");
    expect(formatIsoDuration(3_600_000)).toBe("PT1H");
    expect(formatIsoDuration(93_784_567)).toBe("P1DT2H3M4.567S");
    expect(formatIsoDuration(86_400_000 + 1_000)).toBe("P1DT1S");
    expect(formatIsoDuration(null)).toBe(FOREVER_DURATION);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 * 86_400_000 }),
        (ms) => parseIsoDuration(formatIsoDuration(ms)) === ms,
      ),
    );
  });
});

describe("the official emulator's Config.json", () => {
  it("reads the official sample: its queue with every property, its topic with its subscriptions and rules", () => {
    const config = parseEmulatorConfig(OFFICIAL_SAMPLE, "Config.json");
    expect(config.namespace).toBe("sbemulatorns");
    expect(config.topics).toEqual(["topic.1"]);
    const [topic] = config.topicDefinitions;
    expect(topic?.options).toEqual({ defaultTimeToLiveMs: 3_600_000 });
    expect(
      topic?.subscriptions.map((one) => [one.name, one.options.maxDeliveryCount, one.options.rules]),
    ).toEqual([
      [
        "subscription.1",
        3,
        [{ name: "app-prop-filter-1", filter: { correlation: { contentType: "application/json" } } }],
      ],
      [
        "subscription.4",
        3,
        [{ name: "sql-filter-1", filter: { sql: "sys.MessageId = '123456' AND userProp1 = 'value1'" } }],
      ],
    ]);
    expect(config.queues).toEqual([
      {
        name: "queue.1",
        description: {
          ...AZURE_QUEUE_DEFAULTS,
          deadLetteringOnMessageExpiration: false,
          defaultMessageTimeToLiveMs: 3_600_000,
          duplicateDetectionHistoryTimeWindowMs: 20_000,
          lockDurationMs: 60_000,
          maxDeliveryCount: 3,
          requiresDuplicateDetection: false,
          requiresSession: false,
          forwardTo: undefined,
          forwardDeadLetteredMessagesTo: undefined,
        },
      },
    ]);
  });

  it("reads a file from disk, and names it when it cannot", () => {
    const path = join(directory, "Config.json");
    writeFileSync(path, OFFICIAL_SAMPLE);
    expect(readEmulatorConfig(path).queues.map((queue) => queue.name)).toEqual(["queue.1"]);
    const missing = join(directory, "missing.json");
    expect(() => readEmulatorConfig(missing)).toThrow(
      new QueueError("Configuration", `${missing}: cannot read the Service Bus config file (no such file)`),
    );
  });

  it("gives Azure's defaults to what a queue leaves out, and takes the other QueueDescription settings", () => {
    const config = parseEmulatorConfig(
      configOf([
        { Name: "plain" },
        {
          Name: "sessions",
          Properties: { RequiresSession: true, MaxSizeInMegabytes: 2048, UserMetadata: "team a" },
        },
      ]),
      "Config.json",
    );
    expect(config.queues[0]!.description).toEqual(AZURE_QUEUE_DEFAULTS);
    expect(config.queues[1]!.description).toMatchObject({
      requiresSession: true,
      maxSizeInMegabytes: 2048,
      userMetadata: "team a",
      maxDeliveryCount: 10,
    });
    expect(config.topics).toEqual([]);
  });

  it("refuses a bad file with one Configuration error naming the file, the queue and the property", () => {
    const cases: [string, string][] = [
      ["{ not json", "Config.json: not valid JSON"],
      ['{\n  "UserConfig": {\n    "Namespaces": [,]\n  }\n}', "at line 3, column"],
      [
        '{"UserConfig": {}, "UserConfig": {}}',
        'not valid JSON: "UserConfig" is given twice at line 1, column 20',
      ],
      ['{"UserConfig": {} // a comment\n /* and another', "UnexpectedEndOfComment at line 2"],
      ["[]", "Config.json: the file must be an object"],
      ["{}", "Config.json: the file has no UserConfig"],
      ['{"UserConfig": {}}', "Config.json: UserConfig has no Namespaces"],
      ['{"UserConfig": {"Namespaces": {}}}', "UserConfig.Namespaces must be a list"],
      ['{"UserConfig": {"Namespaces": []}}', "exactly one namespace"],
      [
        '{"UserConfig": {"Namespaces": [{"Name": "a"}, {"Name": "b"}]}}',
        "exactly one namespace (the emulator has one); it holds 2",
      ],
      ['{"UserConfig": {"Namespaces": [{"Queues": []}]}}', "UserConfig.Namespaces[0] has no Name"],
      ['{"UserConfig": {"Namespaces": [{"Name": "ns", "Queues": {}}]}}', "Queues must be a list"],
      [configOf([{ Properties: {} }]), "Queues[0] needs a Name"],
      [configOf(["queue.1"]), "Queues[0] must be an object"],
      [configOf([{ Name: "-bad" }]), 'queue "-bad": queue name "-bad" may hold only'],
      [configOf([{ Name: "q", Properties: [] }]), 'queue "q": Properties must be an object'],
      [
        configOf([{ Name: "q", Properties: { LockDuration: "PT1X" } }]),
        'Config.json: queue "q": LockDuration "PT1X" is not an ISO-8601 duration',
      ],
      [
        configOf([{ Name: "q", Properties: { DefaultMessageTimeToLive: 60 } }]),
        'queue "q": DefaultMessageTimeToLive 60 is not an ISO-8601 duration',
      ],
      [
        configOf([{ Name: "q", Properties: { MaxDeliveryCount: "three" } }]),
        'queue "q": MaxDeliveryCount "three" is not a whole number',
      ],
      [
        configOf([{ Name: "q", Properties: { MaxDeliveryCount: 0 } }]),
        'queue "q": MaxDeliveryCount 0 must be between 1 and',
      ],
      [
        configOf([{ Name: "q", Properties: { RequiresSession: "yes" } }]),
        'queue "q": RequiresSession "yes" is not a boolean',
      ],
      [
        configOf([{ Name: "q", Properties: { LockDuraton: "PT1M" } }]),
        'queue "q": unknown property LockDuraton',
      ],
      [
        configOf([{ Name: "q", Properties: { LockDuration: null } }]),
        'queue "q": LockDuration must be a string',
      ],
      [
        configOf([{ Name: "Orders" }, { Name: "orders" }]),
        'queue "Orders" and queue "orders" have the same name',
      ],
      [configOf([], [{ Subscriptions: [] }]), "Topics[0] needs a Name"],
    ];
    for (const [text, expected] of cases) {
      const error = configError(text);
      expect(error.message).toContain(expected);
      expect(error.message.startsWith("Config.json: ")).toBe(true);
    }
  });
});

describe("applyEmulatorConfig", () => {
  it("creates the file's queues with its settings, and changes nothing when applied again", async () => {
    const engine = new QueueEngine(new MemoryStore(), { createQueues: false });
    const { queues } = parseEmulatorConfig(OFFICIAL_SAMPLE, "Config.json");
    expect(applyEmulatorConfig(engine, queues)).toEqual({ created: ["queue.1"], updated: [] });
    const record = engine.getQueueRecord("queue.1")!;
    expect(record).toMatchObject({
      lockDurationMs: 60_000,
      maxDeliveryCount: 3,
      defaultTimeToLiveMs: 3_600_000,
      deadLetterOnExpiration: false,
      fifo: false,
      deduplicationWindowMs: 0,
      deadLetterQueue: "queue.1-dlq",
    });
    engine.send("queue.1", [message("kept")]);
    expect(applyEmulatorConfig(engine, queues)).toEqual({ created: [], updated: [] });
    expect(engine.getQueueRecord("queue.1")).toEqual(record);
    expect(engine.stats("queue.1").active).toBe(1);
    await engine.close();
  });

  it("updates an existing queue (found in any case) to the file's settings and keeps its messages", async () => {
    const engine = new QueueEngine(new MemoryStore(), { createQueues: false });
    engine.createQueue("QUEUE.1", {
      lockDurationMs: 5_000,
      maxDeliveryCount: 7,
      deadLetterOnExpiration: true,
    });
    engine.send("QUEUE.1", [message("one"), message("two")]);
    const { queues } = parseEmulatorConfig(OFFICIAL_SAMPLE, "Config.json");
    expect(applyEmulatorConfig(engine, queues)).toEqual({ created: [], updated: ["QUEUE.1"] });
    expect(engine.getQueueRecord("queue.1")).toBeUndefined();
    expect(engine.getQueueRecord("QUEUE.1")).toMatchObject({
      lockDurationMs: 60_000,
      maxDeliveryCount: 3,
      defaultTimeToLiveMs: 3_600_000,
      deadLetterOnExpiration: false,
      deduplicationWindowMs: 0,
    });
    expect(engine.stats("QUEUE.1").active).toBe(2);
    await engine.close();
  });

  it("changes RequiresSession only on an empty queue, and applies all or nothing", async () => {
    const engine = new QueueEngine(new MemoryStore(), { createQueues: false });
    const sessions = parseEmulatorConfig(
      configOf([{ Name: "new-one" }, { Name: "queue.1", Properties: { RequiresSession: true } }]),
      "Config.json",
    ).queues;
    engine.createQueue("queue.1");
    engine.send("queue.1", [message("waiting")]);
    expect(() => applyEmulatorConfig(engine, sessions)).toThrow(
      /"queue.1" holds messages, so RequiresSession cannot change/,
    );
    expect(engine.getQueueRecord("new-one")).toBeUndefined();
    engine.purge("queue.1");
    expect(applyEmulatorConfig(engine, sessions)).toEqual({ created: ["new-one"], updated: ["queue.1"] });
    expect(engine.getQueueRecord("queue.1")?.fifo).toBe(true);
    await engine.close();
  });
});

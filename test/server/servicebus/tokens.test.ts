import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import {
  dotnetGuidOrder,
  lockOf,
  lockTokenBytes,
  uuidBytes,
  uuidText,
} from "../../../src/server/servicebus/lock-tokens.js";
import { checkSasToken, parseSasToken, sasSignature } from "../../../src/server/servicebus/sas.js";
import { outgoingMessage } from "../../support/outgoing-message.js";

const key = { keyName: "RootManageSharedAccessKey", key: "SAS_KEY_VALUE" };
const NOW = Date.UTC(2026, 11, 1);

/** A token as the SDK makes one (core-amqp's `createSasTokenProvider`). */
function token(resource: string, expirySeconds: number, signingKey = key): string {
  const signed = encodeURIComponent(resource);
  const signature = encodeURIComponent(sasSignature(signingKey.key, signed, expirySeconds));
  return `SharedAccessSignature sr=${signed}&sig=${signature}&se=${expirySeconds}&skn=${encodeURIComponent(signingKey.keyName)}`;
}

describe("SAS tokens", () => {
  const inAnHour = NOW / 1_000 + 3_600;

  it("holds for the audience it was made for, and for any entity under a namespace-wide one", () => {
    expect(
      checkSasToken(token("sb://localhost:5672/orders", inAnHour), key, "sb://localhost:5672/orders", NOW),
    ).toBeUndefined();
    expect(
      checkSasToken(
        token("sb://localhost:5672/", inAnHour),
        key,
        "sb://localhost:5672/orders/$management",
        NOW,
      ),
    ).toBeUndefined();
    expect(
      checkSasToken(token("sb://LOCALHOST:5672/Orders", inAnHour), key, "sb://localhost:5672/orders", NOW),
    ).toBeUndefined();
  });

  it.each([
    [
      "another key",
      token("sb://h/q", inAnHour, { keyName: key.keyName, key: "wrong" }),
      /signature does not match/,
    ],
    [
      "another key name",
      token("sb://h/q", inAnHour, { keyName: "Other", key: key.key }),
      /signed with key "Other"/,
    ],
    ["an expired token", token("sb://h/q", NOW / 1_000 - 1), /expired at/],
    ["another entity", token("sb://h/other", inAnHour), /grants sb:\/\/h\/other, not sb:\/\/h\/q/],
    ["an entity whose name only starts alike", token("sb://h/q", inAnHour), /grants/],
    ["no token at all", "Bearer abc", /not a SharedAccessSignature/],
    ["a token without its expiry", "SharedAccessSignature sr=x&sig=y&skn=z", /not a SharedAccessSignature/],
  ])("refuses %s, saying why", (what, given, why) => {
    const audience = what === "an entity whose name only starts alike" ? "sb://h/queue" : "sb://h/q";
    expect(checkSasToken(given, key, audience, NOW)).toMatch(why);
  });

  it("reads the fields of a token, decoded", () => {
    expect(parseSasToken(token("sb://h/a b", 5))).toMatchObject({
      resource: "sb://h/a b",
      expiry: 5,
      keyName: key.keyName,
    });
    expect(parseSasToken("SharedAccessSignature sr=%E0%A4%A&sig=a&se=1&skn=k")).toBeUndefined();
  });
});

describe("lock tokens", () => {
  it("name one lock of one message, and no other, without a table", async () => {
    const engine = new QueueEngine(new MemoryStore());
    engine.createQueue("q");
    engine.send("q", [outgoingMessage(new Uint8Array([1]))]);
    const [locked] = await engine.receive("q", 1, (record) => ({ ...record }));
    const { seq } = locked!;
    const bytes = lockTokenBytes("q", seq, locked!.lockToken!);
    expect(lockOf(engine, "q", bytes)).toEqual({ queue: "q", seq, lockToken: locked!.lockToken });
    expect(lockOf(engine, "other", bytes)).toBeUndefined();
    const tampered = Buffer.from(bytes);
    tampered.writeUInt8(tampered.readUInt8(15) ^ 1, 15);
    expect(lockOf(engine, "q", tampered)).toBeUndefined();
    engine.abandon({ queue: "q", seq, lockToken: locked!.lockToken! });
    const [again] = await engine.receive("q", 1, (record) => ({ ...record }));
    // The earlier lock's token no longer names the message: it was received again since.
    expect(lockOf(engine, "q", bytes)).toBeUndefined();
    expect(lockOf(engine, "q", lockTokenBytes("q", seq, again!.lockToken!))).toBeDefined();
  });

  it("carry sequence numbers up to 2^53 - 1", () => {
    const bytes = lockTokenBytes("q", Number.MAX_SAFE_INTEGER, "t");
    expect(bytes.readUIntBE(0, 6) * 256 + bytes[6]!).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("swap their first three groups for .NET's byte order, and back", () => {
    const rfc = uuidBytes("00112233-4455-6677-8899-aabbccddeeff")!;
    expect(uuidText(dotnetGuidOrder(rfc))).toBe("33221100-5544-7766-8899-aabbccddeeff");
    expect(dotnetGuidOrder(dotnetGuidOrder(rfc))).toEqual(rfc);
    expect(uuidBytes("not a uuid")).toBeUndefined();
  });
});

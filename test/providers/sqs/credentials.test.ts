import { inspect } from "node:util";
import { describe, expect, test } from "vitest";
import type { AwsCredentials } from "../../../src/aws/sigv4/credentials.js";
import { VirtualClock } from "../../../src/core/clock.js";
import { QueueError } from "../../../src/core/errors.js";
import { CredentialSource, REFRESH_BEFORE_EXPIRY_MS } from "../../../src/providers/sqs/credentials.js";

const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const TOKEN = "IQoJb3JpZ2luX2VjEXAMPLETOKEN";

async function failure(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

function showsNoSecret(value: unknown): void {
  for (const text of [inspect(value, { depth: 10 }), JSON.stringify(value) ?? "", String(value)]) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(TOKEN);
  }
}

describe("where credentials come from", () => {
  test("a key pair given in the config", async () => {
    const source = CredentialSource.from(
      { accessKeyId: "AKID", secretAccessKey: SECRET },
      {},
      new VirtualClock(),
    );
    const credentials = await source.get();
    expect(credentials.accessKeyId).toBe("AKID");
    expect(credentials.secretAccessKey).toBe(SECRET);
    expect(source.origin).toBe("static");
  });

  test("the environment, session token included", async () => {
    const source = CredentialSource.from(
      undefined,
      { AWS_ACCESS_KEY_ID: "AKID", AWS_SECRET_ACCESS_KEY: SECRET, AWS_SESSION_TOKEN: TOKEN },
      new VirtualClock(),
    );
    const credentials = await source.get();
    expect(credentials.sessionToken).toBe(TOKEN);
    expect(source.origin).toBe("environment");
  });

  test("none anywhere is a Configuration error", () => {
    expect(() => CredentialSource.from(undefined, {}, new VirtualClock())).toThrow(
      expect.objectContaining({ code: "Configuration" }),
    );
  });
});

describe("a provider function", () => {
  test("is called once, shared by concurrent callers, and again 5 minutes before expiry", async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const source = CredentialSource.from(
      async (): Promise<AwsCredentials> => {
        calls++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return {
          accessKeyId: `AKID${calls}`,
          secretAccessKey: SECRET,
          sessionToken: TOKEN,
          expiration: new Date(clock.now() + 60 * 60_000),
        };
      },
      {},
      clock,
    );
    const [a, b] = await Promise.all([source.get(), source.get()]);
    expect(calls).toBe(1);
    expect(a).toBe(b);
    expect((await source.get()).accessKeyId).toBe("AKID1");
    await clock.advance(60 * 60_000 - REFRESH_BEFORE_EXPIRY_MS - 1);
    expect((await source.get()).accessKeyId).toBe("AKID1");
    expect(calls).toBe(1);
    await clock.advance(1);
    // Still valid: the old credentials sign while the refresh runs in the background.
    expect((await source.get()).accessKeyId).toBe("AKID1");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await source.get()).accessKeyId).toBe("AKID2");
    expect(calls).toBe(2);
  });

  test("a failed refresh keeps valid credentials; expired ones fail with Authentication", async () => {
    const clock = new VirtualClock();
    let fail = false;
    const source = CredentialSource.from(
      async () => {
        if (fail) throw new Error("metadata service unreachable");
        return {
          accessKeyId: "AKID",
          secretAccessKey: SECRET,
          expiration: new Date(clock.now() + 10 * 60_000),
        };
      },
      {},
      clock,
    );
    await source.get();
    fail = true;
    await clock.advance(6 * 60_000);
    expect((await source.get()).accessKeyId).toBe("AKID");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await clock.advance(5 * 60_000);
    const error = await failure(() => source.get());
    expect(QueueError.is(error, "Authentication")).toBe(true);
  });

  test("what it returns is checked, naming the missing field and never a value", async () => {
    const source = CredentialSource.from(
      async () => ({ accessKeyId: "AKID", secretAccessKey: "" }) as AwsCredentials,
      {},
      new VirtualClock(),
    );
    const error = await failure(() => source.get());
    expect(error).toMatchObject({ code: "Authentication" });
    expect((error as Error).message).toContain("secretAccessKey");
  });
});

describe("redaction", () => {
  test("sources and credentials never show the secret or the session token", async () => {
    const source = CredentialSource.from(
      { accessKeyId: "AKID", secretAccessKey: SECRET, sessionToken: TOKEN },
      {},
      new VirtualClock(),
    );
    showsNoSecret(source);
    showsNoSecret(await source.get());
    expect(inspect(await source.get())).toContain("AKID");
  });
});

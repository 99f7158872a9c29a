import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { regionFromHost, SigningKeyCache, SigV4Credentials } from "../../../src/aws/sigv4/index.js";

describe("SigV4Credentials", () => {
  const credentials = new SigV4Credentials({
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    sessionToken: "session-token-value",
    expiration: new Date(Date.UTC(2030, 0, 1)),
  });

  it("exposes the secret and token to code", () => {
    expect(credentials.secretAccessKey).toBe("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    expect(credentials.sessionToken).toBe("session-token-value");
    expect(SigV4Credentials.from(credentials)).toBe(credentials);
  });

  it("never prints the secret or the token", () => {
    const printed = [
      inspect(credentials),
      inspect({ nested: { credentials } }, { depth: 10, showHidden: true }),
      JSON.stringify(credentials),
      JSON.stringify({ credentials }),
      String(credentials),
      `${credentials}`,
    ];
    for (const text of printed) {
      expect(text).not.toContain("wJalrXUtnFEMI");
      expect(text).not.toContain("session-token-value");
    }
    expect(inspect(credentials)).toContain("AKIDEXAMPLE");
    expect(JSON.parse(JSON.stringify(credentials))).toEqual({
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: "[redacted]",
      sessionToken: "[redacted]",
      expiration: "2030-01-01T00:00:00.000Z",
    });
  });
});

describe("regionFromHost", () => {
  it("reads the region from AWS hosts", () => {
    expect(regionFromHost("sqs.eu-west-1.amazonaws.com")).toBe("eu-west-1");
    expect(regionFromHost("sqs.us-gov-west-1.amazonaws.com:443")).toBe("us-gov-west-1");
    expect(regionFromHost("sqs-fips.us-east-2.amazonaws.com")).toBe("us-east-2");
    expect(regionFromHost("ap-southeast-2.queue.amazonaws.com")).toBe("ap-southeast-2");
    expect(regionFromHost("sqs.cn-north-1.amazonaws.com.cn")).toBe("cn-north-1");
    expect(regionFromHost("sqs.eu-central-1.api.aws")).toBe("eu-central-1");
    expect(regionFromHost("vpce-0abc.sqs.eu-north-1.vpce.amazonaws.com")).toBe("eu-north-1");
  });

  it("answers us-east-1 for global endpoints and for any other host", () => {
    expect(regionFromHost("queue.amazonaws.com")).toBe("us-east-1");
    expect(regionFromHost("127.0.0.1:9324")).toBe("us-east-1");
    expect(regionFromHost("localhost")).toBe("us-east-1");
    expect(regionFromHost("[::1]:9324")).toBe("us-east-1");
    expect(regionFromHost("sqs.eu-west-1.example.com")).toBe("us-east-1");
  });
});

describe("SigningKeyCache", () => {
  it("derives a key once per secret, day, region and service", () => {
    const cache = new SigningKeyCache();
    const first = cache.get("secret", "20150830", "us-east-1", "sqs");
    expect(cache.get("secret", "20150830", "us-east-1", "sqs")).toBe(first);
    expect(cache.get("secret", "20150831", "us-east-1", "sqs")).not.toBe(first);
    expect(cache.get("other", "20150830", "us-east-1", "sqs").equals(first)).toBe(false);
  });

  it("does not show its keys when inspected", () => {
    const cache = new SigningKeyCache();
    cache.get("super-secret", "20150830", "us-east-1", "sqs");
    expect(inspect(cache, { showHidden: true, depth: 5 })).not.toContain("super-secret");
  });
});

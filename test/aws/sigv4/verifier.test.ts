import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import type { SigV4ErrorCode, VerifiableRequest } from "../../../src/aws/sigv4/index.js";
import {
  canonicalUri,
  credentialsLookup,
  formatAmzDate,
  isSigV4Error,
  parseAmzDate,
  SigV4Signer,
  SigV4Verifier,
} from "../../../src/aws/sigv4/index.js";
import { VirtualClock } from "../../../src/core/clock.js";

const NOW = Date.UTC(2026, 0, 15, 10, 0, 0);
const KEY = { accessKeyId: "AKIDLOCAL", secretAccessKey: "local-secret-do-not-print" };
const TEMP = {
  accessKeyId: "ASIATEMP",
  secretAccessKey: "temp-secret-do-not-print",
  sessionToken: "token-1",
};

type SentHeaders = Record<string, string> & { authorization: string };

const body = '{"QueueUrl":"http://127.0.0.1:9324/000000000000/orders","MessageBody":"hi"}';

function signed(
  credentials: typeof KEY | typeof TEMP = KEY,
  options: { contentSha256Header?: boolean } = {},
) {
  const headers: Record<string, string> = {
    host: "127.0.0.1:9324",
    "content-type": "application/x-amz-json-1.0",
    "x-amz-target": "AmazonSQS.SendMessage",
    "user-agent": "test",
  };
  const signer = new SigV4Signer({
    region: "eu-west-1",
    service: "sqs",
    clock: new VirtualClock(NOW),
    ...options,
  });
  const result = signer.sign({ method: "POST", path: "/", headers, body }, credentials);
  const sent: SentHeaders = { ...headers, ...result.headers, authorization: result.authorization };
  return { method: "POST", path: "/", headers: sent, body } satisfies VerifiableRequest;
}

function verifier(options: { region?: string; clock?: VirtualClock; allowUnsignedPayload?: boolean } = {}) {
  return new SigV4Verifier({
    service: "sqs",
    clock: options.clock ?? new VirtualClock(NOW),
    lookupSecret: credentialsLookup(KEY, TEMP),
    region: options.region,
    allowUnsignedPayload: options.allowUnsignedPayload,
  });
}

async function failure(
  request: VerifiableRequest,
  v = verifier(),
): Promise<{ code: SigV4ErrorCode; error: Error }> {
  const error = await v.verify(request).then(
    () => expect.fail("verification should have failed"),
    (caught: unknown) => caught,
  );
  if (!isSigV4Error(error)) throw error;
  return { code: error.awsCode as SigV4ErrorCode, error };
}

function withAuthorization(value: string | undefined): VerifiableRequest {
  const request = signed();
  const { authorization: _, ...rest } = request.headers;
  return { ...request, headers: value === undefined ? rest : { ...rest, authorization: value } };
}

describe("SigV4Verifier", () => {
  it("accepts what SigV4Signer signed, in any region unless one is required", async () => {
    await expect(verifier().verify(signed())).resolves.toMatchObject({
      accessKeyId: "AKIDLOCAL",
      region: "eu-west-1",
      service: "sqs",
      requestTime: NOW,
    });
    await expect(verifier({ region: "eu-west-1" }).verify(signed())).resolves.toBeDefined();
    expect((await failure(signed(), verifier({ region: "us-east-1" }))).code).toBe("SignatureDoesNotMatch");
  });

  it("does not sign user-agent, so a proxy may rewrite it", async () => {
    const request = signed();
    expect(request.headers.authorization).toContain(
      "SignedHeaders=content-type;host;x-amz-date;x-amz-target,",
    );
    await expect(
      verifier().verify({ ...request, headers: { ...request.headers, "user-agent": "other" } }),
    ).resolves.toBeDefined();
  });

  it("answers MissingAuthenticationToken without an Authorization header", async () => {
    const { code, error } = await failure(withAuthorization(undefined));
    expect(code).toBe("MissingAuthenticationToken");
    expect((error as { status?: number }).status).toBe(403);
  });

  it("answers IncompleteSignature for a malformed Authorization header", async () => {
    const good = signed().headers.authorization;
    const malformed = [
      good.replace("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA1"),
      good.replace(", Signature=", ", Sig="),
      good.replace(/, SignedHeaders=[^,]+/, ""),
      good.replace("Credential=AKIDLOCAL/", "Credential=AKIDLOCAL/x/"),
      good.replace(/Signature=[0-9a-f]+/, "Signature=abc"),
      good.replace("content-type;host", "host;content-type"),
      good.replace("content-type;host", "Content-Type;host"),
      `${good}, Signature=${"0".repeat(64)}`,
      "AWS4-HMAC-SHA256",
      "",
    ];
    for (const value of malformed) {
      const { code, error } = await failure(withAuthorization(value));
      expect(code, value).toBe("IncompleteSignature");
      expect((error as { status?: number }).status).toBe(400);
    }
  });

  it("judges every request whole though it remembers a header's parse up to the signature", async () => {
    const shared = verifier();
    const request = signed();
    await expect(shared.verify(request)).resolves.toBeDefined();
    const good = request.headers.authorization;
    const signature = good.slice(-64);
    for (const [value, expected] of [
      [`${good.slice(0, -64)}${"G".repeat(64)}`, "IncompleteSignature"],
      [`${good.slice(0, -64)}${signature.toUpperCase()}`, "IncompleteSignature"],
      [`${good.slice(0, -64)}${signature.slice(1)}0`, "SignatureDoesNotMatch"],
      [good.replace(", Signature=", ", Sig="), "IncompleteSignature"],
    ] as const) {
      const { code } = await failure(withAuthorization(value), shared);
      expect(code, value).toBe(expected);
    }
    const { code } = await failure(
      { ...request, headers: { ...request.headers, "x-amz-date": "20260115T100000" } },
      shared,
    );
    expect(code).toBe("IncompleteSignature");
    await expect(shared.verify(request)).resolves.toMatchObject({ requestTime: NOW });
  });

  it("answers IncompleteSignature when host is not signed or the date is missing or malformed", async () => {
    const request = signed();
    const hostless = request.headers.authorization.replace(
      "content-type;host;x-amz-date",
      "content-type;x-amz-date",
    );
    expect(
      (await failure({ ...request, headers: { ...request.headers, authorization: hostless } })).code,
    ).toBe("IncompleteSignature");
    const { "x-amz-date": _, ...undated } = request.headers;
    expect((await failure({ ...request, headers: undated })).code).toBe("IncompleteSignature");
    expect(
      (await failure({ ...request, headers: { ...request.headers, "x-amz-date": "2026-01-15T10:00:00Z" } }))
        .code,
    ).toBe("IncompleteSignature");
  });

  it("answers InvalidClientTokenId for an unknown access key id", async () => {
    const request = signed({ accessKeyId: "AKIDUNKNOWN", secretAccessKey: KEY.secretAccessKey });
    const { code, error } = await failure(request);
    expect(code).toBe("InvalidClientTokenId");
    expect((error as { status?: number }).status).toBe(403);
  });

  it("answers SignatureDoesNotMatch for a scope naming another date or service", async () => {
    const request = signed();
    for (const [from, to] of [
      ["/20260115/", "/20260114/"],
      ["/sqs/", "/sns/"],
      ["/aws4_request", "/aws5_request"],
    ] as const) {
      const authorization = request.headers.authorization.replace(from, to);
      const { code } = await failure({ ...request, headers: { ...request.headers, authorization } });
      expect(code, to).toBe("SignatureDoesNotMatch");
    }
  });

  it("answers RequestExpired outside the skew window, which is configurable", async () => {
    expect((await failure(signed(), verifier({ clock: new VirtualClock(NOW + 16 * 60_000) }))).code).toBe(
      "RequestExpired",
    );
    const strict = new SigV4Verifier({
      service: "sqs",
      clock: new VirtualClock(NOW + 61_000),
      maxSkewMs: 60_000,
      lookupSecret: credentialsLookup(KEY),
    });
    expect((await failure(signed(), strict)).code).toBe("RequestExpired");
  });

  it("checks x-amz-content-sha256 against the body, and refuses UNSIGNED-PAYLOAD unless allowed", async () => {
    const request = signed(KEY, { contentSha256Header: true });
    await expect(verifier().verify(request)).resolves.toBeDefined();
    expect((await failure({ ...request, body: `${body} ` })).code).toBe("SignatureDoesNotMatch");

    const signer = new SigV4Signer({ region: "us-east-1", service: "sqs", clock: new VirtualClock(NOW) });
    const headers = { host: "h", "x-amz-content-sha256": "UNSIGNED-PAYLOAD" };
    const unsigned = {
      method: "POST",
      path: "/",
      headers,
      body: "anything",
      payloadHash: "UNSIGNED-PAYLOAD",
    };
    const sent = { ...unsigned, headers: { ...headers, ...signer.sign(unsigned, KEY).headers } };
    expect((await failure(sent)).code).toBe("SignatureDoesNotMatch");
    await expect(verifier({ allowUnsignedPayload: true }).verify(sent)).resolves.toBeDefined();
  });

  it("never puts the secret in an error", async () => {
    const request = signed();
    const attempts = [
      { ...request, body: "tampered" },
      withAuthorization("AWS4-HMAC-SHA256 nonsense"),
      signed({ accessKeyId: "AKIDUNKNOWN", secretAccessKey: "x" }),
    ];
    for (const attempt of attempts) {
      const { error } = await failure(attempt);
      const everything = `${error.message} ${error.stack} ${inspect(error, { depth: 5 })} ${JSON.stringify(error)}`;
      expect(everything).not.toContain(KEY.secretAccessKey);
    }
  });
});

describe("session tokens", () => {
  it("signs X-Amz-Security-Token and hands it to the lookup", async () => {
    const request = signed(TEMP);
    expect(request.headers["x-amz-security-token"]).toBe("token-1");
    expect(request.headers.authorization).toContain(";x-amz-security-token;");
    await expect(verifier().verify(request)).resolves.toMatchObject({
      accessKeyId: "ASIATEMP",
      sessionToken: "token-1",
    });
  });

  it("refuses a token that does not belong to the key (InvalidClientTokenId)", async () => {
    const request = signed({ ...TEMP, sessionToken: "token-2" });
    expect((await failure(request)).code).toBe("InvalidClientTokenId");
  });

  it("refuses temporary credentials sent without their token", async () => {
    const request = signed({ accessKeyId: TEMP.accessKeyId, secretAccessKey: TEMP.secretAccessKey });
    expect((await failure(request)).code).toBe("InvalidClientTokenId");
  });

  it("adds the token after signing when asked to, leaving it out of SignedHeaders", () => {
    const signer = new SigV4Signer({
      region: "us-east-1",
      service: "sqs",
      clock: new VirtualClock(NOW),
      signSessionToken: false,
    });
    const result = signer.sign({ method: "GET", path: "/", headers: { host: "h" } }, TEMP);
    expect(result.headers["x-amz-security-token"]).toBe("token-1");
    expect(result.authorization).toContain("SignedHeaders=host;x-amz-date,");
  });
});

describe("canonical URI", () => {
  it("double-encodes a path that is already percent-encoded, as every service but S3 signs it", () => {
    expect(canonicalUri("/example%20space/")).toBe("/example%2520space/");
    expect(canonicalUri("/a b/ሴ/$")).toBe("/a%20b/%E1%88%B4/%24");
  });

  it("normalises dot segments and repeated slashes, keeping a trailing slash", () => {
    expect(canonicalUri("")).toBe("/");
    expect(canonicalUri("//a//b/./c/../")).toBe("/a/b/");
    expect(canonicalUri("/a/..")).toBe("/");
  });
});

describe("X-Amz-Date", () => {
  it("reads valid timestamps and refuses impossible ones", () => {
    expect(parseAmzDate("20150830T123600Z")).toBe(Date.UTC(2015, 7, 30, 12, 36, 0));
    expect(parseAmzDate("20240229T235959Z")).toBe(Date.UTC(2024, 1, 29, 23, 59, 59));
    for (const value of [
      "20150231T000000Z",
      "20151301T000000Z",
      "20150830T240000Z",
      "20150830T126000Z",
      "20150800T000000Z",
      "2015-08-30T12:36:00Z",
    ]) {
      expect(parseAmzDate(value), value).toBeUndefined();
    }
    expect(formatAmzDate(Date.UTC(2015, 7, 30, 12, 36, 0, 999))).toBe("20150830T123600Z");
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  canonicalRequest,
  credentialScope,
  credentialsLookup,
  deriveSigningKey,
  isSigV4Error,
  SigV4Signer,
  SigV4Verifier,
  sha256Hex,
  signatureOf,
  stringToSign,
} from "../../../src/aws/sigv4/index.js";
import { VirtualClock } from "../../../src/core/clock.js";
import { parseSuiteRequest, suiteCases } from "../testdata.js";

const SUITE_TIME = Date.UTC(2015, 7, 30, 12, 36, 0);
const ACCESS_KEY_ID = "AKIDEXAMPLE";
const SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const STS_TOKEN =
  "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==";

/** Cases that sign with temporary credentials, as the suite's README describes. */
const SESSION_CASES: Record<string, { sessionToken: string; signSessionToken: boolean }> = {
  "get-vanilla-with-session-token": {
    sessionToken: "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267",
    signSessionToken: true,
  },
  "post-sts-token/post-sts-header-before": { sessionToken: STS_TOKEN, signSessionToken: true },
  "post-sts-token/post-sts-header-after": { sessionToken: STS_TOKEN, signSessionToken: false },
};

/** The one case whose `.sreq` carries the wrong (get-vanilla) signature upstream. */
const WRONG_SREQ_UPSTREAM = "get-vanilla-with-session-token";

const cases = suiteCases();

describe("AWS SigV4 test suite", () => {
  it("finds all 34 cases", () => {
    expect(cases).toHaveLength(34);
  });

  for (const testCase of cases) {
    it(testCase.name, async () => {
      const read = (ext: string) => readFileSync(`${testCase.dir}.${ext}`, "utf8");
      const request = parseSuiteRequest(read("req"));
      const session = SESSION_CASES[testCase.name];
      const clock = new VirtualClock(SUITE_TIME);
      const signer = new SigV4Signer({
        region: "us-east-1",
        service: "service",
        clock,
        signSessionToken: session?.signSessionToken ?? true,
      });
      const signed = signer.sign(request, {
        accessKeyId: ACCESS_KEY_ID,
        secretAccessKey: SECRET,
        sessionToken: session?.sessionToken,
      });
      expect(signed.canonicalRequest).toBe(read("creq"));
      expect(signed.stringToSign).toBe(read("sts"));
      expect(signed.authorization).toBe(read("authz"));

      const sent = parseSuiteRequest(read("sreq"));
      const verifier = new SigV4Verifier({
        service: "service",
        clock,
        lookupSecret: credentialsLookup({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET }),
      });
      if (testCase.name === WRONG_SREQ_UPSTREAM) {
        // The upstream .sreq is known to carry get-vanilla's signature; it must not verify.
        await expect(verifier.verify(sent)).rejects.toSatisfy((error) =>
          isSigV4Error(error, "SignatureDoesNotMatch"),
        );
        const fixed = [...sent.headers.slice(0, -1), signed.authorization];
        await expect(verifier.verify({ ...sent, headers: fixed })).resolves.toMatchObject({
          accessKeyId: ACCESS_KEY_ID,
        });
      } else {
        expect(sent.headers.at(-1)!.trim()).toBe(read("authz"));
        await expect(verifier.verify(sent)).resolves.toMatchObject({
          accessKeyId: ACCESS_KEY_ID,
          region: "us-east-1",
          service: "service",
          sessionToken: session?.sessionToken,
        });
      }
    });
  }
});

describe("AWS's worked example (IAM ListUsers)", () => {
  const signer = new SigV4Signer({
    region: "us-east-1",
    service: "iam",
    clock: new VirtualClock(SUITE_TIME),
  });
  const signed = signer.sign(
    {
      method: "GET",
      path: "/",
      query: "Action=ListUsers&Version=2010-05-08",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
        Host: "iam.amazonaws.com",
      },
    },
    { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET },
  );

  it("builds the documented canonical request and its hash", () => {
    expect(signed.canonicalRequest).toBe(
      [
        "GET",
        "/",
        "Action=ListUsers&Version=2010-05-08",
        "content-type:application/x-www-form-urlencoded; charset=utf-8",
        "host:iam.amazonaws.com",
        "x-amz-date:20150830T123600Z",
        "",
        "content-type;host;x-amz-date",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      ].join("\n"),
    );
    expect(sha256Hex(signed.canonicalRequest)).toBe(
      "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59",
    );
  });

  it("derives the documented signing key and signature", () => {
    const key = deriveSigningKey(SECRET, "20150830", "us-east-1", "iam");
    expect(key.toString("hex")).toBe("c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9");
    expect(signed.stringToSign).toBe(
      stringToSign(
        "20150830T123600Z",
        credentialScope("20150830", "us-east-1", "iam"),
        signed.canonicalRequest,
      ),
    );
    expect(signatureOf(key, signed.stringToSign)).toBe(
      "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
    );
    expect(signed.headers).toEqual({
      "x-amz-date": "20150830T123600Z",
      authorization:
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
    });
  });

  it("derives the older documented key for 20120215", () => {
    expect(deriveSigningKey(SECRET, "20120215", "us-east-1", "iam").toString("hex")).toBe(
      "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d",
    );
  });

  it("derives the suite's signing key", () => {
    expect(deriveSigningKey(SECRET, "20150830", "us-east-1", "service").toString("hex")).toBe(
      "938127b5336810ddb6a5d6af445fcac9e371f9ed418ed386b022aed82901be75",
    );
  });

  it("canonicalises the same way whichever side builds the request", () => {
    expect(
      canonicalRequest({
        method: "get",
        path: "/",
        query: "Version=2010-05-08&Action=ListUsers",
        headers: [
          "host",
          "iam.amazonaws.com",
          "X-Amz-Date",
          "20150830T123600Z",
          "content-type",
          "  application/x-www-form-urlencoded;   charset=utf-8 ",
        ],
        signedHeaders: ["content-type", "host", "x-amz-date"],
        payloadHash: sha256Hex(""),
      }),
    ).toBe(signed.canonicalRequest);
  });
});

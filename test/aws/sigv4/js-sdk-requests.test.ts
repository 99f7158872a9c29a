import { describe, expect, it } from "vitest";
import {
  canonicalRequest,
  credentialsLookup,
  isSigV4Error,
  parseAuthorization,
  SigV4Verifier,
  sha256Hex,
} from "../../../src/aws/sigv4/index.js";
import { VirtualClock } from "../../../src/core/clock.js";
import { readTestJson } from "../testdata.js";

interface CapturedRequest {
  operation: string;
  method: string;
  path: string;
  rawHeaders: [string, string][];
  body: string;
  expected: { payloadSha256: string; canonicalRequest: string; signature: string };
}

interface Samples {
  credentials: { accessKeyId: string; secretAccessKey: string };
  requests: CapturedRequest[];
}

const samples = readTestJson<Samples>("sqs-json-samples/js-sdk-v3-signed-requests.json");
const CAPTURE_TIME = Date.UTC(2015, 7, 30, 12, 36, 0);

function verifier(clock = new VirtualClock(CAPTURE_TIME), secret = samples.credentials.secretAccessKey) {
  return new SigV4Verifier({
    service: "sqs",
    clock,
    lookupSecret: credentialsLookup({
      accessKeyId: samples.credentials.accessKeyId,
      secretAccessKey: secret,
    }),
  });
}

function toWire(
  request: CapturedRequest,
  headers = request.rawHeaders,
  body: Uint8Array = Buffer.from(request.body),
) {
  return { method: request.method, path: request.path, headers: headers.flat(), body };
}

/** Changes one character of a header value: its last digit, or its last character when it has none. */
function flipOne(value: string): string {
  const digits = [...value.matchAll(/\d/g)];
  const index = digits.length > 0 ? digits.at(-1)!.index! : value.length - 1;
  const char = value[index]!;
  const replacement = /\d/.test(char) ? String((Number(char) + 1) % 10) : char === "a" ? "b" : "a";
  return `${value.slice(0, index)}${replacement}${value.slice(index + 1)}`;
}

describe("requests signed by @aws-sdk/client-sqs", () => {
  it("holds the four captured operations", () => {
    expect(samples.requests.map((request) => request.operation)).toEqual([
      "CreateQueue",
      "SendMessage",
      "SendMessageBatch",
      "ReceiveMessage",
    ]);
  });

  for (const request of samples.requests) {
    describe(request.operation, () => {
      const auth = parseAuthorization(request.rawHeaders.find(([name]) => name === "authorization")![1]);

      it("verifies", async () => {
        await expect(verifier().verify(toWire(request))).resolves.toEqual({
          accessKeyId: "AKIDEXAMPLE",
          region: "us-east-1",
          service: "sqs",
          sessionToken: undefined,
          signedHeaders: auth.signedHeaders,
          requestTime: CAPTURE_TIME,
        });
      });

      it("rebuilds the recorded canonical request", () => {
        expect(sha256Hex(request.body)).toBe(request.expected.payloadSha256);
        expect(
          canonicalRequest({
            method: request.method,
            path: request.path,
            headers: request.rawHeaders.flat(),
            signedHeaders: auth.signedHeaders,
            payloadHash: request.expected.payloadSha256,
          }),
        ).toBe(request.expected.canonicalRequest);
        expect(auth.signature).toBe(request.expected.signature);
      });

      it("fails when one byte of the body changes", async () => {
        const body = Buffer.from(request.body);
        for (const index of [0, body.length >> 1, body.length - 1]) {
          const tampered = Buffer.from(body);
          tampered[index]! ^= 0x01;
          await expect(verifier().verify(toWire(request, request.rawHeaders, tampered))).rejects.toSatisfy(
            (error) => isSigV4Error(error, "SignatureDoesNotMatch"),
          );
        }
      });

      for (const name of auth.signedHeaders) {
        it(`fails when one byte of signed header ${name} changes`, async () => {
          const headers = request.rawHeaders.map(([header, value]): [string, string] =>
            header.toLowerCase() === name ? [header, flipOne(value)] : [header, value],
          );
          await expect(verifier().verify(toWire(request, headers))).rejects.toSatisfy((error) =>
            isSigV4Error(error, "SignatureDoesNotMatch"),
          );
        });
      }

      it("still verifies when an unsigned header changes", async () => {
        const headers = request.rawHeaders.map(([header, value]): [string, string] =>
          header === "user-agent" || header === "Connection" ? [header, `${value}-changed`] : [header, value],
        );
        await expect(verifier().verify(toWire(request, headers))).resolves.toMatchObject({ service: "sqs" });
      });
    });
  }

  const sendMessage = samples.requests[1]!;

  it("fails with SignatureDoesNotMatch for a wrong secret", async () => {
    await expect(verifier(undefined, "wrong-secret").verify(toWire(sendMessage))).rejects.toSatisfy((error) =>
      isSigV4Error(error, "SignatureDoesNotMatch"),
    );
  });

  it("fails with RequestExpired more than 15 minutes either side of the request time", async () => {
    for (const offset of [15 * 60_000 + 1_000, -(15 * 60_000 + 1_000)]) {
      await expect(
        verifier(new VirtualClock(CAPTURE_TIME + offset)).verify(toWire(sendMessage)),
      ).rejects.toSatisfy((error) => isSigV4Error(error, "RequestExpired"));
    }
  });

  it("accepts a request 14 minutes either side of the server time", async () => {
    for (const offset of [14 * 60_000, -14 * 60_000]) {
      await expect(
        verifier(new VirtualClock(CAPTURE_TIME + offset)).verify(toWire(sendMessage)),
      ).resolves.toBeDefined();
    }
  });

  it("reads headers given as a record with array values as well as raw pairs", async () => {
    const record: Record<string, string> = {};
    for (const [name, value] of sendMessage.rawHeaders) record[name.toLowerCase()] = value;
    await expect(
      verifier().verify({ method: "POST", path: "/", headers: record, body: sendMessage.body }),
    ).resolves.toMatchObject({ accessKeyId: "AKIDEXAMPLE" });
  });
});

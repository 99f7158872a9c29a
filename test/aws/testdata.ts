import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The shared test data, read in place (never copied into the repository): `$QUEUE_RUNTIME_SHARED`,
 * else `../shared` next to the checkout, else the workplace's `/work/shared` (for clones made elsewhere).
 */
export const TESTDATA =
  [
    process.env.QUEUE_RUNTIME_SHARED,
    fileURLToPath(new URL("../../../shared", import.meta.url)),
    "/work/shared",
  ]
    .filter(
      (candidate): candidate is string => candidate !== undefined && existsSync(`${candidate}/testdata`),
    )
    .map((candidate) => `${candidate}/testdata/`)[0] ??
  fileURLToPath(new URL("../../../shared/testdata/", import.meta.url));

/** Reads a file under the shared test data as UTF-8. */
export function readTestData(path: string): string {
  return readFileSync(`${TESTDATA}${path}`, "utf8");
}

/** Reads and parses a JSON file under the shared test data. */
export function readTestJson<T>(path: string): T {
  return JSON.parse(readTestData(path)) as T;
}

/** A request parsed from one of the suite's `.req` / `.sreq` files. */
export interface SuiteRequest {
  method: string;
  path: string;
  query: string;
  /** Flat `[name, value, ...]`, names as written, folded lines kept with their line breaks. */
  headers: string[];
  body: string;
}

/**
 * Parses a suite request: the request line split on the first and the last space (paths may hold
 * spaces), `Name:value` headers with obs-fold continuation lines, a blank line, then the body.
 */
export function parseSuiteRequest(text: string): SuiteRequest {
  const lines = text.split("\n");
  const requestLine = lines[0]!;
  const method = requestLine.slice(0, requestLine.indexOf(" "));
  const target = requestLine.slice(method.length + 1, requestLine.lastIndexOf(" "));
  const question = target.indexOf("?");
  const headers: string[] = [];
  let i = 1;
  for (; i < lines.length && lines[i] !== ""; i++) {
    const line = lines[i]!;
    if (line.startsWith(" ") || line.startsWith("\t")) {
      headers[headers.length - 1] += `\n${line}`;
      continue;
    }
    const colon = line.indexOf(":");
    headers.push(line.slice(0, colon), line.slice(colon + 1));
  }
  return {
    method,
    path: question === -1 ? target : target.slice(0, question),
    query: question === -1 ? "" : target.slice(question + 1),
    headers,
    body: lines.slice(i + 1).join("\n"),
  };
}

/** One case of the SigV4 test suite: its name (path under the suite) and the directory holding it. */
export interface SuiteCase {
  name: string;
  dir: string;
}

/** Every case of the suite: each directory that holds a `<dir>.req` file, nested ones included. */
export function suiteCases(): SuiteCase[] {
  const root = `${TESTDATA}aws-sig-v4-test-suite/`;
  const cases: SuiteCase[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(`${root}${relative}`).sort()) {
      const path = `${relative}${entry}`;
      if (!statSync(`${root}${path}`).isDirectory()) continue;
      if (readdirSync(`${root}${path}`).includes(`${entry}.req`))
        cases.push({ name: path, dir: `${root}${path}/${entry}` });
      walk(`${path}/`);
    }
  };
  walk("");
  return cases;
}

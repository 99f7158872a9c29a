// The README's Node versions hold against package.json and the lock file: the runtime's range
// (`engines`), what the development tools ask for on Node 20, and the warnings `npm ci` and the
// AWS SDK print there.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageJson, readText, root } from "./markdown.js";

type Version = [number, number, number];

const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
const show = ([major, minor, patch]: Version) =>
  patch === 0 ? `${major}.${minor}` : `${major}.${minor}.${patch}`;

/** A version or x-range (`20`, `20.x`, `20.19.0`) as its lowest version and the version after its range. */
function versionRange(text: string): { low: Version; next: Version } {
  const parts = text.replace(/^v/, "").split(".");
  const numbers = parts.map((part) => (/^\d+$/.test(part) ? Number(part) : undefined));
  const [major = 0, minor, patch] = numbers;
  if (minor === undefined) return { low: [major, 0, 0], next: [major + 1, 0, 0] };
  if (patch === undefined) return { low: [major, minor, 0], next: [major, minor + 1, 0] };
  return { low: [major, minor, patch], next: [major, minor, patch + 1] };
}

/**
 * The lowest Node 20 release one `||` alternative of an `engines.node` range admits, or
 * undefined when it admits none (the comparators this lock file's ranges use).
 */
function lowest20(alternative: string): Version | undefined {
  let low: Version = [0, 0, 0];
  let high: Version = [Number.MAX_SAFE_INTEGER, 0, 0];
  const comparators = alternative
    .replace(/(>=|<=|>|<|\^|~)\s+/g, "$1")
    .trim()
    .split(/\s+/);
  for (const comparator of comparators) {
    if (comparator === "*" || comparator === "") continue;
    const [, op = "", version = ""] = /^(>=|<=|>|<|\^|~|=)?(.*)$/.exec(comparator)!;
    const range = versionRange(version);
    const raise = (to: Version) => {
      if (compare(to, low) > 0) low = to;
    };
    const lower = (to: Version) => {
      if (compare(to, high) < 0) high = to;
    };
    if (op === ">=") raise(range.low);
    else if (op === ">") raise(range.next);
    else if (op === "<") lower(range.low);
    else if (op === "<=") lower(range.next);
    else if (op === "^") {
      raise(range.low);
      lower([range.low[0] + 1, 0, 0]);
    } else if (op === "~") {
      raise(range.low);
      lower([range.low[0], range.low[1] + 1, 0]);
    } else {
      raise(range.low);
      lower(range.next);
    }
  }
  const from: Version = compare(low, [20, 0, 0]) > 0 ? low : [20, 0, 0];
  return compare(from, high) < 0 && compare(from, [21, 0, 0]) < 0 ? from : undefined;
}

/** The lowest Node 20 release a whole `engines.node` range admits, or undefined. */
function lowestNode20(range: string): Version | undefined {
  const found = range
    .split("||")
    .map(lowest20)
    .filter((version) => version !== undefined);
  return found.sort(compare)[0];
}

interface Locked {
  engines?: { node?: string };
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
}
const lock = JSON.parse(readText("package-lock.json")) as { packages: Record<string, Locked> };
const installed = Object.entries(lock.packages)
  .filter(([path, entry]) => path !== "" && entry.engines?.node !== undefined && !entry.optional)
  .map(([path, entry]) => ({
    name: path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length),
    range: entry.engines!.node!,
    dev: entry.dev === true || entry.devOptional === true,
  }));
const { engines } = packageJson();
const runtimeLowest = lowestNode20(engines.node);
/** The README's paragraph on Node versions: the one stating the runtime's range. */
const requirements =
  readText("README.md")
    .split(/\n\s*\n/)
    .find(
      (paragraph) =>
        runtimeLowest !== undefined && paragraph.startsWith(`Node ${show(runtimeLowest)} or later`),
    )
    ?.replace(/\s+/g, " ") ?? "";

describe("Node versions in the README", () => {
  it("reads the lock file's ranges", () => {
    expect(lowestNode20(">=20.12")).toEqual([20, 12, 0]);
    expect(lowestNode20("^20.19.0 || >=22.12.0")).toEqual([20, 19, 0]);
    expect(lowestNode20(">=22")).toBeUndefined();
    expect(lowestNode20("20.x || 22.x")).toEqual([20, 0, 0]);
    expect(lowestNode20(">= 0.4")).toEqual([20, 0, 0]);
    expect(installed.length).toBeGreaterThan(10);
  });

  it("has a paragraph that starts with the runtime's range from package.json's engines", () => {
    expect(runtimeLowest).toBeDefined();
    expect(requirements).toContain(`Node ${show(runtimeLowest!)} or later runs the package`);
  });

  it("every runtime dependency runs on the lowest Node the engines field allows", () => {
    for (const runtime of installed.filter((entry) => !entry.dev)) {
      const admits = lowestNode20(runtime.range);
      expect(
        admits !== undefined && compare(admits, runtimeLowest!) <= 0,
        `${runtime.name} ${runtime.range}`,
      ).toBe(true);
    }
  });

  it("names a runtime dependency that declares only some Node majors", () => {
    for (const runtime of installed.filter((entry) => !entry.dev)) {
      const openEnded = runtime.range
        .split("||")
        .some((alternative) => /^\s*(>=?|\*)/.test(alternative) && !alternative.includes("<"));
      if (!openEnded)
        expect(requirements, `${runtime.name} ${runtime.range}`).toContain(`\`${runtime.name}\``);
    }
  });

  it("states the Node 20 release the development tools ask for", () => {
    const wanted = installed
      .filter((entry) => entry.dev)
      .map((entry) => lowestNode20(entry.range))
      .filter((version) => version !== undefined)
      .sort(compare)
      .at(-1)!;
    expect(requirements).toMatch(new RegExp(`Node ${show(wanted).replaceAll(".", "\\.")}(\\+| or later)`));
  });

  it("names the development dependencies npm ci warns about on Node 20 (EBADENGINE)", () => {
    const refusing = installed.filter((entry) => entry.dev && lowestNode20(entry.range) === undefined);
    if (refusing.length > 0) expect(requirements).toContain("`EBADENGINE`");
    for (const entry of refusing)
      expect(requirements, `${entry.name} ${entry.range}`).toContain(`\`${entry.name}\``);
  });

  it("names the AWS SDK's warning on Node 20", () => {
    // The SDK's own check (in @aws-sdk/core): Node below 22 gets the warning once per process.
    const core = join(root, "node_modules", "@aws-sdk", "core", "dist-cjs");
    const warns =
      existsSync(core) &&
      readdirSync(core, { recursive: true, encoding: "utf8" }).some(
        (file) =>
          file.endsWith(".js") &&
          readFileSync(join(core, file), "utf8").includes("NodeVersionSupportWarning"),
      );
    expect(warns).toBe(true);
    expect(requirements).toContain("`NodeVersionSupportWarning`");
  });
});

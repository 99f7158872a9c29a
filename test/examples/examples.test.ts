// The examples name the npm scripts that run them, every npm script the docs name exists, and
// each example runs to its end.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageJson, readText, root, runTypeScript } from "../readme/markdown.js";

const examples = readdirSync(join(root, "examples")).filter((name) => name.endsWith(".ts"));
const documents = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
  ...examples.map((name) => `examples/${name}`),
];
const { scripts } = packageJson();

/** The scripts `text` tells someone to run: `npm run <name>`, `npm start`, `npm test`. */
function scriptsNamed(text: string): string[] {
  return [...text.matchAll(/\bnpm (?:run(?:-script)? ([\w:.-]*\w)|(start|test)\b)/g)].map(
    (found) => found[1] ?? found[2]!,
  );
}

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-examples-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("examples and npm scripts", () => {
  it("finds the examples", () => {
    expect(examples).toContain("quickstart.ts");
  });

  it.each(documents)("every npm script %s names exists in package.json", (path) => {
    const missing = scriptsNamed(readText(path)).filter((name) => scripts[name] === undefined);
    expect(missing).toEqual([]);
  });

  it.each(examples)("examples/%s names the npm script that runs it", (name) => {
    const named = scriptsNamed(readText(`examples/${name}`));
    expect(named.length).toBeGreaterThan(0);
    for (const script of named) expect(scripts[script]).toContain(`examples/${name}`);
  });

  it.each(examples)(
    "examples/%s runs to its end",
    async (name) => {
      const ran = await runTypeScript(join(root, "examples", name), directory);
      expect(ran.stderr).toBe("");
      expect(ran.code).toBe(0);
    },
    60_000,
  );

  it("examples/consumer.ts runs twice in a row on one file, each run shipping what it sent and clearing its dead letter", async () => {
    const twice = mkdtempSync(join(tmpdir(), "queue-runtime-consumer-example-"));
    try {
      for (let run = 0; run < 2; run++) {
        const ran = await runTypeScript(join(root, "examples", "consumer.ts"), twice);
        expect(ran.stderr).toBe("");
        expect(ran.code).toBe(0);
        for (const parcel of [1, 2, 4]) expect(ran.stdout).toContain(`shipped parcel ${parcel} `);
        expect(ran.stdout).toContain("shipped parcel 2 (delivery 2)");
        expect(ran.stdout).toContain("because InvalidWeight: parcel 3 weighs -1 kg");
        expect(ran.stdout).toMatch(/completed: 3,\s+abandoned: 1,\s+deadLettered: 1/);
      }
    } finally {
      rmSync(twice, { recursive: true, force: true });
    }
  }, 120_000);
});

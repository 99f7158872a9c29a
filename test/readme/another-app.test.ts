// Using the package from another app, as the README says: build here, then install this
// directory in the app. The test builds into a directory of its own and links it into an app as
// `npm install <folder>` does, then imports every entry point and runs the command.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageJson, readText, root } from "./markdown.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-another-app-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const manifest = packageJson();
const buildConfig = JSON.parse(readText("tsconfig.build.json")) as {
  compilerOptions: { outDir: string; rootDir: string };
};

function node(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, args, { cwd, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({
        code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
        output: `${stdout}${stderr}`,
      }),
    ),
  );
}

describe("using the package from another app", () => {
  it("the README says to build first and how to install the built package", () => {
    const readme = readText("README.md");
    const at = readme.indexOf("### Using it from another app");
    expect(at).toBeGreaterThan(0);
    const section = readme.slice(at, readme.indexOf("\n## ", at));
    expect(section).toContain("npm run build");
    expect(section).toContain(`${buildConfig.compilerOptions.outDir}/`);
    expect(section).toMatch(/npm install \/path\/to\/queue-runtime/);
    expect(manifest.scripts.build).toContain("tsconfig.build.json");
  });

  it("every entry point and the command point into what `npm run build` writes", () => {
    const outDir = `./${buildConfig.compilerOptions.outDir}/`;
    const targets = [
      ...Object.values(manifest.exports).flatMap((entry) => [entry.import, entry.types]),
      ...Object.values(manifest.bin),
    ];
    for (const target of targets) {
      expect(target.startsWith(outDir)).toBe(true);
      const source = target
        .slice(outDir.length)
        .replace(/\.d\.ts$|\.js$/, ".ts")
        .replace(/^/, `${buildConfig.compilerOptions.rootDir}/`);
      expect(existsSync(join(root, source)), source).toBe(true);
    }
  });

  it("after the build, an app with the package installed imports every entry point and runs the command", async () => {
    const pkg = join(directory, "queue-runtime");
    mkdirSync(pkg);
    cpSync(join(root, "package.json"), join(pkg, "package.json"));
    symlinkSync(join(root, "node_modules"), join(pkg, "node_modules"), "dir");
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const built = await node(
      [
        tsc,
        "-p",
        join(root, "tsconfig.build.json"),
        "--outDir",
        join(pkg, buildConfig.compilerOptions.outDir),
      ],
      root,
    );
    expect(built.output).toBe("");
    expect(built.code).toBe(0);

    const app = join(directory, "app");
    mkdirSync(join(app, "node_modules"), { recursive: true });
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", type: "module", private: true }));
    symlinkSync(pkg, join(app, "node_modules", "queue-runtime"), "dir");
    const entries = Object.keys(manifest.exports).map((entry) => entry.replace(/^\./, "queue-runtime"));
    writeFileSync(
      join(app, "main.js"),
      [
        ...entries.map((entry, i) => `import * as entry${i} from ${JSON.stringify(entry)};`),
        `for (const entry of [${entries.map((_, i) => `entry${i}`).join(", ")}])`,
        "  if (Object.keys(entry).length === 0) throw new Error('an entry point exports nothing');",
        "const client = await entry0.createClient('memory:');",
        "await client.sendMessage('orders', 'hello from the app');",
        "const message = await client.receiveMessage('orders');",
        "await client.completeMessage(message.receiptHandle);",
        "await client.close();",
        "console.log(message.text());",
      ].join("\n"),
    );
    expect(entries[0]).toBe("queue-runtime");
    const ran = await node(["main.js"], app);
    expect(ran.output).toBe("hello from the app\n");
    expect(ran.code).toBe(0);

    const [command, target] = Object.entries(manifest.bin)[0]!;
    const help = await node([join(app, "node_modules", "queue-runtime", target), "--help"], app);
    expect(help.code).toBe(0);
    expect(help.output).toContain(`Usage: ${command} <command>`);
  }, 120_000);
});

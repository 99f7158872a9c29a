// What the README tests share: the repository's root, its Markdown, the code blocks marked for
// testing, and a way to run a block as a user would, against the sources instead of dist/.
import { execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository's root directory, with a trailing slash. */
export const root = fileURLToPath(new URL("../../", import.meta.url));

/** A file of the repository as text. */
export function readText(path: string): string {
  return readFileSync(join(root, path), "utf8");
}

/** The repository's package.json. */
export function packageJson(): {
  engines: { node: string };
  scripts: Record<string, string>;
  exports: Record<string, { types: string; import: string }>;
  bin: Record<string, string>;
} {
  return JSON.parse(readText("package.json"));
}

/**
 * The code of the fenced block right after `<!-- test: <name> -->` in `markdown`; throws when there
 * is no such block, so a block losing its marker fails its test.
 */
export function markedBlock(markdown: string, name: string): string {
  const marker = `<!-- test: ${name} -->`;
  const at = markdown.indexOf(marker);
  if (at < 0) throw new Error(`no ${marker} in the Markdown`);
  const found = /^\s*```[a-z]*\n([\s\S]*?)\n```/.exec(markdown.slice(at + marker.length));
  if (found === null) throw new Error(`no fenced code block right after ${marker}`);
  return found[1]!;
}

/**
 * `source` with its imports of `queue-runtime` and `queue-runtime/<entry>` pointed at the
 * sources (`src/index.js`, `src/<entry>/index.js`: tsx runs the TypeScript behind them, and tsc
 * checks it), as an app that installed the package would import them.
 */
export function fromSources(source: string): string {
  return source.replace(
    /from "queue-runtime(\/[a-z]+)?"/g,
    (_, entry: string | undefined) => `from ${JSON.stringify(join(root, "src", entry ?? "", "index.js"))}`,
  );
}

/** What a process did. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript file with Node and tsx's loader (no wrapper process), in `cwd`. */
export function runTypeScript(file: string, cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", tsx, file],
      { cwd, env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Runs a TypeScript file that runs until told to stop (a consumer): once its output shows
 * `ready`, it gets SIGTERM, and the result is how it then ended.
 */
export function runUntilTerminated(file: string, cwd: string, ready: string): Promise<Ran> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", tsx, file], { cwd, env: process.env });
    let stdout = "";
    let stderr = "";
    const watchdog = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      const before = stdout;
      stdout += chunk;
      if (!before.includes(ready) && stdout.includes(ready)) child.kill("SIGTERM");
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("close", (code) => {
      clearTimeout(watchdog);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Writes `source` (its `queue-runtime` imports pointed at the sources) to `<directory>/<name>.mts`. */
export function writeExample(directory: string, name: string, source: string): string {
  const file = join(directory, `${name}.mts`);
  writeFileSync(file, fromSources(source));
  return file;
}

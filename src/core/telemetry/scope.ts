import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The name of the tracer and the meter, as the spec binds it. */
export const INSTRUMENTATION_NAME = "queue-runtime";

/**
 * The package's version: from the nearest package.json of this package above this file (src/,
 * dist/ and a benchmark's build sit at different depths), or "0.0.0" when none is found.
 */
function packageVersion(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const found = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (found.name === INSTRUMENTATION_NAME && typeof found.version === "string") return found.version;
    } catch {
      // No package.json here (or not ours): look one folder up.
    }
    const parent = dirname(folder);
    if (parent === folder) return "0.0.0";
    folder = parent;
  }
}

/** The version the tracer and the meter carry. */
export const INSTRUMENTATION_VERSION: string = packageVersion();

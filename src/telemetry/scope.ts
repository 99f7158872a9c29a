import { createRequire } from "node:module";

/** The name of the tracer and the meter, as the spec binds it. */
export const INSTRUMENTATION_NAME = "queue-runtime";

/** The package's version, read once from its package.json (two folders up, from src/ or dist/ alike). */
export const INSTRUMENTATION_VERSION: string = (
  createRequire(import.meta.url)("../../package.json") as { version: string }
).version;

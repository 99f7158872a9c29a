// `npm run test:model -- --runs 10000`: the model-based tests (test/model) as a long campaign,
// each provider given that many runs per test instead of what `npm test` gives it, and no timeout.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  options: { runs: { type: "string", default: "10000" } },
  allowPositionals: true,
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs must be a whole number of runs, not ${JSON.stringify(values.runs)}`);
  process.exit(2);
}
// vitest's own entry (its `bin`), run by this Node rather than through a wrapper.
const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));
// Files named after the options narrow the campaign to them; without any, every provider runs.
const files = positionals.length > 0 ? positionals : ["test/model"];
const ran = spawnSync(process.execPath, [vitest, "run", ...files], {
  stdio: "inherit",
  env: { ...process.env, MODEL_RUNS: String(runs) },
});
process.exit(ran.status ?? 1);

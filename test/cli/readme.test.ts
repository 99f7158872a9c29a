// The README's operator command line section stays true to the commands: every command it runs
// exists, and every option it gives is one that command's --help explains.
import { describe, expect, it } from "vitest";
import { readText } from "../readme/markdown.js";
import { cli, succeeded, useBuiltCommand } from "./built-cli.js";

useBuiltCommand();

const readme = readText("README.md");
const section = readme.slice(
  readme.indexOf("## Operator command line"),
  readme.indexOf("## `queue-runtime serve`: an SQS-compatible server"),
);

/** The command lines of the section's shell blocks: each `queue-runtime ...` run, its words. */
function commandLines(markdown: string): string[][] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((found) => found[1]!);
  return blocks
    .flatMap((block) => block.split("\n"))
    .filter((line) => !line.startsWith("#"))
    .flatMap((line) =>
      [...line.matchAll(/queue-runtime ([^|<#]*)/g)].map((found) => found[1]!.trim().split(/\s+/)),
    );
}

describe("the README's operator command line section", () => {
  it("comes before the serve section and shows every operator command", () => {
    expect(section.length).toBeGreaterThan(1_000);
    const shown = new Set(commandLines(section).map((words) => words[0]));
    for (const command of ["queues", "send", "receive", "peek", "dead-letters", "redrive"])
      expect(shown).toContain(command);
  });

  it("gives each command only options its --help explains", { timeout: 60_000 }, async () => {
    const runs = commandLines(section);
    const helps = new Map<string, string>();
    for (const command of new Set(runs.map((words) => words[0]!)))
      helps.set(command, succeeded(await cli([command, "--help"])));
    for (const words of runs)
      for (const option of words.filter((word) => word.startsWith("--")))
        expect(helps.get(words[0]!), `${words.join(" ")}`).toContain(option);
  });
});

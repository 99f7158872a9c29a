// Links in the README and docs/ point at files of this repository that exist, never outside it
// (a clone has nothing beside it).
import { existsSync, readdirSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { readText, root } from "./markdown.js";

const documents = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The relative link targets of `markdown`: inline links and images, and reference definitions. */
function linkTargets(markdown: string): string[] {
  const inline = [...markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g)].map(
    (found) => found[1]!,
  );
  const references = [...markdown.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map(
    (found) => found[1]!,
  );
  return [...inline, ...references]
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
    .map((target) => decodeURIComponent(target.replace(/[#?].*$/, "")))
    .filter((target) => target !== "");
}

/** Whether `path`, read relative to the document at `document`, stays inside the repository. */
function inside(document: string, path: string): boolean {
  const resolved = relative(root, resolve(root, dirname(document), path));
  return resolved === "" || (resolved !== ".." && !resolved.startsWith(`..${sep}`) && !isAbsolute(resolved));
}

describe("links in the README and docs", () => {
  it("finds links to check", () => {
    expect(linkTargets(readText("README.md")).length).toBeGreaterThan(5);
  });

  it.each(documents)("%s links only to files inside the repository that exist", (document) => {
    const wrong = linkTargets(readText(document)).filter(
      (target) =>
        target.startsWith("/") ||
        !inside(document, target) ||
        !existsSync(resolve(root, dirname(document), target)),
    );
    expect(wrong).toEqual([]);
  });

  it.each(documents)("%s names no path that leaves the repository", (document) => {
    const paths = [...readText(document).matchAll(/(?:^|[^\w.])((?:\.\.\/)+[\w@.\-/]*)/g)].map(
      (found) => found[1]!,
    );
    expect(paths.filter((path) => !inside(document, path))).toEqual([]);
  });
});

// A strict reader of Prometheus's text format 0.0.4, enough to hold /metrics answers to it: every
// sample belongs to a family announced by HELP and TYPE lines, label values are unescaped as the
// format says, and anything else on a line fails the test that reads it.

/** One sample line: its name (with `_bucket`, `_sum`, `_count` for histograms), labels and value. */
export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A family's HELP text and TYPE. */
export interface ParsedFamily {
  readonly help: string;
  readonly type: string;
}

/** A whole exposition. */
export interface Exposition {
  readonly families: ReadonlyMap<string, ParsedFamily>;
  readonly samples: readonly ParsedSample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const HISTOGRAM_SUFFIXES = ["_bucket", "_sum", "_count"];

/** Parses `text`, throwing at the first line that breaks the format. */
export function parseExposition(text: string): Exposition {
  if (text !== "" && !text.endsWith("\n")) throw new Error("the text does not end with a line feed");
  const families = new Map<string, { help?: string; type?: string }>();
  const samples: ParsedSample[] = [];
  for (const line of text.split("\n").slice(0, -1)) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta !== null) {
      const [, kind, name, rest] = meta as unknown as [string, "HELP" | "TYPE", string, string];
      const family = families.get(name) ?? {};
      if (kind === "HELP") family.help = rest.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
      else if (["counter", "gauge", "histogram", "summary", "untyped"].includes(rest)) family.type = rest;
      else throw new Error(`unknown type in ${JSON.stringify(line)}`);
      families.set(name, family);
      continue;
    }
    if (line.startsWith("#") || line.trim() === "") continue;
    const sample = parseSample(line);
    const family = familyOf(sample.name, families);
    if (family?.type === undefined || family.help === undefined)
      throw new Error(`${sample.name} has no HELP and TYPE before it`);
    samples.push(sample);
  }
  return {
    families: new Map(
      [...families].map(([name, family]) => [name, { help: family.help ?? "", type: family.type ?? "" }]),
    ),
    samples,
  };
}

/** The value of the one sample named `name` whose labels are exactly `labels`; throws when there is none or several. */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number {
  const wanted = Object.entries(labels);
  const found = exposition.samples.filter(
    (sample) =>
      sample.name === name &&
      Object.keys(sample.labels).length === wanted.length &&
      wanted.every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length !== 1)
    throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)} (one expected)`);
  return found[0]!.value;
}

/** The samples named `name` whose labels include `labels`. */
export function samplesOf(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): ParsedSample[] {
  return exposition.samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

function familyOf(name: string, families: Map<string, { help?: string; type?: string }>) {
  const own = families.get(name);
  if (own !== undefined) return own;
  const suffix = HISTOGRAM_SUFFIXES.find((end) => name.endsWith(end));
  const base = suffix === undefined ? undefined : families.get(name.slice(0, -suffix.length));
  return base?.type === "histogram" ? base : undefined;
}

function parseSample(line: string): ParsedSample {
  const name = NAME.exec(line)?.[0];
  if (name === undefined) throw new Error(`no metric name in ${JSON.stringify(line)}`);
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === "{") {
    at++;
    while (line[at] !== "}") {
      const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at));
      if (label === null) throw new Error(`a bad label at ${at} in ${JSON.stringify(line)}`);
      at += label[0].length;
      let value = "";
      for (;;) {
        const character = line[at++];
        if (character === undefined) throw new Error(`an unclosed label value in ${JSON.stringify(line)}`);
        if (character === '"') break;
        if (character === "\\") {
          const escaped = line[at++];
          if (escaped === "n") value += "\n";
          else if (escaped === "\\" || escaped === '"') value += escaped;
          else throw new Error(`a bad escape \\${escaped} in ${JSON.stringify(line)}`);
        } else value += character;
      }
      if (label[1]! in labels) throw new Error(`label ${label[1]} twice in ${JSON.stringify(line)}`);
      labels[label[1]!] = value;
      if (line[at] === ",") at++;
      else if (line[at] !== "}") throw new Error(`a bad label separator in ${JSON.stringify(line)}`);
    }
    at++;
  }
  const rest = /^ (\S+)( -?\d+)?$/.exec(line.slice(at));
  if (rest === null) throw new Error(`no value in ${JSON.stringify(line)}`);
  const text = rest[1]!;
  const value = text === "+Inf" ? Infinity : text === "-Inf" ? -Infinity : Number(text);
  if (Number.isNaN(value) && text !== "NaN") throw new Error(`a bad value in ${JSON.stringify(line)}`);
  return { name, labels, value };
}

/** The content type of Prometheus's text exposition format, version 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Label names and their values, in the order they are written. */
export type Labels = Readonly<Record<string, string>>;

/** One sample of a gauge or a counter. */
export interface Sample {
  readonly labels: Labels;
  readonly value: number;
}

/** One labelled histogram: cumulative counts per upper bound (the `+Inf` bucket is `count`). */
export interface HistogramSample {
  readonly labels: Labels;
  /** Upper bounds, ascending, each with how many observations were at most it. */
  readonly buckets: readonly { readonly le: number; readonly count: number }[];
  readonly sum: number;
  readonly count: number;
}

/** A metric family: its name, help and samples, of one type. */
export type MetricFamily =
  | {
      readonly type: "gauge" | "counter";
      readonly name: string;
      readonly help: string;
      readonly samples: readonly Sample[];
    }
  | {
      readonly type: "histogram";
      readonly name: string;
      readonly help: string;
      readonly samples: readonly HistogramSample[];
    };

/** The families as one exposition text: HELP and TYPE lines, then each sample on a line. */
export function renderFamilies(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    if (family.type === "histogram")
      for (const sample of family.samples) histogramLines(family.name, sample, lines);
    else
      for (const sample of family.samples)
        lines.push(`${family.name}${labelText(sample.labels)} ${numberText(sample.value)}`);
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** A label value escaped as the format asks: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (character) => (character === "\n" ? "\\n" : `\\${character}`));
}

/** The lines of one histogram: a cumulative bucket per bound and `+Inf`, then sum and count. */
function histogramLines(name: string, sample: HistogramSample, lines: string[]): void {
  for (const bucket of sample.buckets)
    lines.push(`${name}_bucket${labelText({ ...sample.labels, le: numberText(bucket.le) })} ${bucket.count}`);
  lines.push(`${name}_bucket${labelText({ ...sample.labels, le: "+Inf" })} ${sample.count}`);
  lines.push(`${name}_sum${labelText(sample.labels)} ${numberText(sample.sum)}`);
  lines.push(`${name}_count${labelText(sample.labels)} ${sample.count}`);
}

/** `{a="1",b="2"}`, or nothing for no labels. */
function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escapeLabelValue(value)}"`);
  return pairs.length === 0 ? "" : `{${pairs.join(",")}}`;
}

/** A number as the format writes it (Go's float syntax: `+Inf`, `-Inf`, `NaN`). */
function numberText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

/** HELP text escaped as the format asks: backslash and line feed (quotes stay). */
function escapeHelp(help: string): string {
  return help.replace(/[\\\n]/g, (character) => (character === "\n" ? "\\n" : "\\\\"));
}

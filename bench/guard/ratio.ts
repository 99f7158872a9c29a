import { bestOfRounds, formatNumber, type Measurement, type Runs, rate } from "../lib.js";

/** What a ratio compares: items per second (higher is better) or client CPU µs per item (lower is better). */
export type Figure = "msg/s" | "CPU µs/msg";

/** Which side of its threshold a ratio must stay on. */
export type Direction = "at least" | "at most";

/** The two contenders of a ratio, and what they share (a server) to be closed once measured. */
export interface Contest {
  readonly ours: () => Promise<Measurement>;
  readonly floor: () => Promise<Measurement>;
  readonly close?: () => Promise<void>;
}

/** One ratio the guard keeps: ours over the floor, in `figure`, must be `direction` `threshold`. */
export interface GuardedRatio {
  readonly name: string;
  readonly figure: Figure;
  readonly direction: Direction;
  readonly threshold: number;
  /** Alternating rounds of one measurement; a re-measurement takes twice as many. */
  readonly rounds: number;
  /** Sets up the contenders (each of their calls is one timed run). */
  readonly contenders: () => Promise<Contest>;
}

/** A ratio as measured once. */
export interface Verdict {
  readonly ratio: GuardedRatio;
  /** Each contender's name (as its measurements give it) and best figure. */
  readonly ours: { readonly name: string; readonly figure: number };
  readonly floor: { readonly name: string; readonly figure: number };
  readonly value: number;
  readonly passed: boolean;
  /** Whether this is the re-measurement after a first failure. */
  readonly remeasured: boolean;
  readonly rounds: number;
  /** Wall time of the measurement, set-up included. */
  readonly seconds: number;
}

/** Items per second, or CPU µs per item, of a measurement. */
function figureOf(figure: Figure, m: Measurement): number {
  return figure === "msg/s" ? rate(m) : ((m.cpuMs ?? Number.NaN) * 1000) / m.items;
}

/** The contender's best figure over its runs: the highest rate or the least CPU. */
function bestFigure(figure: Figure, runs: readonly Measurement[]): number {
  const figures = runs.map((m) => figureOf(figure, m));
  return figure === "msg/s" ? Math.max(...figures) : Math.min(...figures);
}

/** Measures `ratio` over `rounds` alternating rounds and judges it against its threshold. */
export async function measureRatio(
  ratio: GuardedRatio,
  rounds: number,
  remeasured: boolean,
): Promise<Verdict> {
  const started = performance.now();
  const contest = await ratio.contenders();
  let runs: Runs[];
  try {
    runs = await bestOfRounds(rounds, [contest.ours, contest.floor]);
  } finally {
    await contest.close?.();
  }
  // Each contender's best figure over all its runs: a CPU figure's best run need not be the fastest.
  const [ours, floor] = runs.map(({ best, all }) => ({
    name: best.name,
    figure: bestFigure(ratio.figure, all),
  }));
  const value = ours!.figure / floor!.figure;
  const passed = ratio.direction === "at least" ? value >= ratio.threshold : value <= ratio.threshold;
  const seconds = (performance.now() - started) / 1000;
  return { ratio, ours: ours!, floor: floor!, value, passed, remeasured, rounds, seconds };
}

/** A figure as the table shows it: whole messages per second, or µs with two decimals. */
function formatFigure(figure: Figure, value: number): string {
  return figure === "msg/s" ? `${formatNumber(value)} msg/s` : `${value.toFixed(2)} µs/msg`;
}

/** The table's row of a verdict. */
export function row(verdict: Verdict): string {
  const { ratio } = verdict;
  return `| ${ratio.name}${verdict.remeasured ? ", re-measured" : ""} | ${verdict.rounds} | ${verdict.seconds.toFixed(1)} | ${formatFigure(ratio.figure, verdict.ours.figure)} | ${formatFigure(ratio.figure, verdict.floor.figure)} | ${verdict.value.toFixed(2)}x | ${ratio.direction} ${ratio.threshold}x | ${verdict.passed ? "PASS" : "FAIL"} |`;
}

/** The header of the table {@link row} fills. */
export const TABLE_HEADER =
  "| ratio | rounds | s | ours | floor | ratio | threshold | result |\n|---|---:|---:|---:|---:|---:|---|---|";

/** The line that names a failed ratio, its threshold and both figures. */
export function failureLine(verdict: Verdict): string {
  const { ratio } = verdict;
  const side = ratio.direction === "at least" ? "below" : "above";
  return `bench:guard: ${ratio.name} is ${verdict.value.toFixed(2)}x, ${side} the ${ratio.threshold}x threshold (${verdict.ours.name} ${formatFigure(ratio.figure, verdict.ours.figure)}, ${verdict.floor.name} ${formatFigure(ratio.figure, verdict.floor.figure)})`;
}

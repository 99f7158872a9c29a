import { formatNumber, type Measurement, type Runs, rate } from "../lib.js";

/** One goal of issue 27, judged on one run of the suite. */
export interface Goal {
  readonly text: string;
  readonly met: boolean;
  /** The figures it was judged on, and their ratio. */
  readonly figures: string;
}

/** CPU µs per message of one run. */
export const cpuPerMessage = (run: Measurement): number => ((run.cpuMs ?? Number.NaN) * 1000) / run.items;

/**
 * A contender's figures over its runs: the best rate and the least CPU per message, each on its
 * own (on a shared machine a run's CPU per message swings, and not with its rate).
 */
export interface Figures {
  readonly rate: number;
  readonly cpu: number;
}

/** The best rate and the least CPU per message of `runs`. */
export function figuresOf(runs: Runs): Figures {
  return { rate: rate(runs.best), cpu: Math.min(...runs.all.map(cpuPerMessage)) };
}

/** The goal line of `goal`: met or not, with its figures. */
export function goalLine(goal: Goal): string {
  return `- ${goal.text}: ${goal.met ? "met" : "not met"} (${goal.figures})`;
}

/** Goal: `ours`'s CPU per message at most `times` that of `theirs`. */
export function cpuAtMost(text: string, ours: Figures, theirs: Figures, times: number): Goal {
  const ratio = ours.cpu / theirs.cpu;
  return {
    text,
    met: ratio <= times,
    figures: `${ours.cpu.toFixed(2)} against ${theirs.cpu.toFixed(2)} µs/msg: ${ratio.toFixed(2)}x`,
  };
}

/** Goal: `ours`'s rate at least `times` that of `theirs`. */
export function rateAtLeast(text: string, ours: Figures, theirs: Figures, times: number): Goal {
  const ratio = ours.rate / theirs.rate;
  return {
    text,
    met: ratio >= times,
    figures: `${formatNumber(ours.rate)} against ${formatNumber(theirs.rate)} msg/s: ${ratio.toFixed(2)}x`,
  };
}

/** Goal: `ours`'s rate at least `floor` messages a second. */
export function rateOver(text: string, ours: Figures, floor: number): Goal {
  return { text, met: ours.rate >= floor, figures: `${formatNumber(ours.rate)} msg/s` };
}

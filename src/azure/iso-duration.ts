import { QueueError, type QueueErrorCode } from "../core/errors.js";

/** .NET's `TimeSpan.MaxValue` as Azure writes it: what Service Bus means by "forever". */
export const FOREVER_DURATION = "P10675199DT2H48M5.4775807S";

// TimeSpan counts 100 ns ticks in a signed 64-bit integer; MaxValue is the largest.
const MAX_TICKS = 9_223_372_036_854_775_807n;
const TICKS_PER_MS = 10_000n;
const TICKS_PER_SECOND = 10_000_000n;
const TICKS_PER_DAY = 86_400n * TICKS_PER_SECOND;

// xs:duration without weeks (XmlConvert has none); a fraction only on the seconds.
const DURATION =
  /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d+))?S)?)?$/;

/** How a caller names what it parses, for the error a bad text fails with. */
export interface DurationContext {
  /** The setting the text is for (`LockDuration`), put before the text in the error. */
  readonly what?: string;
  /** `Validation` (a request) by default; `Configuration` for a file. */
  readonly code?: QueueErrorCode;
}

/**
 * Milliseconds from an ISO-8601 duration as Azure writes and reads them (`PT1M`, `P14D`,
 * `PT0.5S`), or `null` for `TimeSpan.MaxValue` (forever). Years count 365 days and months 30, as
 * .NET's XmlConvert counts them; fractions of a millisecond are rounded.
 */
export function parseIsoDuration(text: string, context: DurationContext = {}): number | null {
  const fail = (why: string): QueueError =>
    new QueueError(
      context.code ?? "Validation",
      `${context.what === undefined ? "" : `${context.what} `}${JSON.stringify(text)} ${why}`,
    );
  if (typeof text !== "string")
    throw fail("is not an ISO-8601 duration (a string like PT1M, P14D or PT0.5S)");
  const match = DURATION.exec(text.trim());
  if (match === null) throw fail("is not an ISO-8601 duration (like PT1M, P14D or PT0.5S)");
  const [, years, months, days, hours, minutes, seconds, fraction] = match;
  const count = (digits: string | undefined): bigint => (digits === undefined ? 0n : BigInt(digits));
  const allMonths = count(months);
  const allDays = (count(years) + allMonths / 12n) * 365n + (allMonths % 12n) * 30n + count(days);
  const fractionTicks = fraction === undefined ? 0n : BigInt(fraction.slice(0, 7).padEnd(7, "0"));
  const ticks =
    allDays * TICKS_PER_DAY +
    (count(hours) * 3_600n + count(minutes) * 60n + count(seconds)) * TICKS_PER_SECOND +
    fractionTicks;
  if (ticks === MAX_TICKS) return null;
  if (ticks > MAX_TICKS)
    throw fail(`is longer than the longest duration Azure accepts (${FOREVER_DURATION})`);
  return Number((ticks + TICKS_PER_MS / 2n) / TICKS_PER_MS);
}

/**
 * The ISO-8601 duration Azure writes for `ms` milliseconds, as .NET's XmlConvert does: days,
 * hours, minutes and seconds with the zero parts left out (`PT1M`, `P14D`, `PT0.5S`, `PT0S`);
 * `null` (forever) is {@link FOREVER_DURATION}.
 */
export function formatIsoDuration(ms: number | null): string {
  if (ms === null) return FOREVER_DURATION;
  if (!Number.isFinite(ms)) throw new QueueError("Validation", `${ms} is not a number of milliseconds`);
  const sign = ms < 0 ? "-" : "";
  let rest = Math.round(Math.abs(ms));
  const days = Math.floor(rest / 86_400_000);
  rest -= days * 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1_000);
  const millis = rest - seconds * 1_000;
  let time = "";
  if (hours > 0) time += `${hours}H`;
  if (minutes > 0) time += `${minutes}M`;
  if (seconds > 0 || millis > 0)
    time += millis > 0 ? `${seconds}.${String(millis).padStart(3, "0").replace(/0+$/, "")}S` : `${seconds}S`;
  if (days === 0 && time === "") return "PT0S";
  return `${sign}P${days > 0 ? `${days}D` : ""}${time === "" ? "" : `T${time}`}`;
}

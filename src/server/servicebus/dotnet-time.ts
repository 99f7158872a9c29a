/** .NET ticks (100 ns) at the Unix epoch: what `DateTime.Ticks` says of 1970-01-01. */
const EPOCH_TICKS = 621_355_968_000_000_000n;

/** An instant (ms since the epoch) as .NET ticks in 8 big-endian bytes, as Service Bus sends `locked-until-utc`. */
export function dotnetTicks(ms: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64BE(EPOCH_TICKS + BigInt(Math.round(ms)) * 10_000n);
  return bytes;
}

import { WARM } from "../consumer/remote.js";
import { type DrainWork, drain, type Measurement, measureTimed } from "../lib.js";
import { BATCH, LOOPS, MESSAGES, type Shape } from "./settings.js";

/** A contender's side of one run: its work for {@link drain} on queues of its own, and how to remove them and let go. */
export interface Side {
  readonly work: DrainWork;
  readonly close: () => Promise<void>;
}

/** Messages a send carries and loops running at once, by shape. */
export const SHAPES: Readonly<Record<Shape, { readonly batch: number; readonly loops: number }>> = {
  batches: { batch: BATCH, loops: LOOPS },
  single: { batch: 1, loops: 1 },
};

/** How the tables name a shape. */
export function shapeName(shape: Shape): string {
  return shape === "batches" ? `batches of ${BATCH} from ${LOOPS} loops` : "one at a time";
}

/**
 * Opens a side with `open`, times {@link MESSAGES} messages of `shape` through it (send, receive,
 * settle; the CPU of this process, started warm as the other network benches do), then closes it.
 */
export async function timedSide(
  name: string,
  shape: Shape,
  open: (total: number) => Promise<Side>,
): Promise<Measurement> {
  const total = MESSAGES[shape];
  const { batch, loops } = SHAPES[shape];
  const side = await open(total);
  try {
    return await measureTimed(name, total, () => drain(total, batch, loops, side.work), WARM);
  } finally {
    await side.close();
  }
}

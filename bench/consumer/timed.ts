import { type Measurement, measureTimed, type TimedOptions } from "../lib.js";

/** Sets a contender going on a filled queue: it calls `done` once the last message is done, `fail` on a failure. */
export type Start = (done: () => void, fail: (error: unknown) => void) => unknown;

/**
 * Times a contender from the call of `start` until it calls `done`, with its CPU as
 * {@link measureTimed} measures it; a throw or rejection of `start`, or a call of `fail`, fails the run.
 */
export function timedUntilDone(
  name: string,
  count: number,
  start: Start,
  options?: TimedOptions,
): Promise<Measurement> {
  return measureTimed(
    name,
    count,
    () => {
      const started = performance.now();
      return new Promise<number>((resolve, reject) => {
        const done = () => resolve(performance.now() - started);
        Promise.resolve()
          .then(() => start(done, reject))
          .catch(reject);
      });
    },
    options,
  );
}

/** A counter of messages done (a handler's calls, an event's firings): calls `then` on its `count`th call. */
export function countTo(count: number, then: () => void): () => void {
  let counted = 0;
  return () => {
    if (++counted === count) then();
  };
}

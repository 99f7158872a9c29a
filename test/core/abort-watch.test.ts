import { getEventListeners } from "node:events";
import { describe, expect, test } from "vitest";
import { onAbort } from "../../src/core/abort-watch.js";
import { sleep, VirtualClock } from "../../src/core/clock.js";

/** Lets queued microtasks run. */
const microtasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe("onAbort: one listener per signal", () => {
  test("any number of waits hold one listener, each runs once on abort, and the listener goes with the last", () => {
    const controller = new AbortController();
    const ran: number[] = [];
    const forgets = Array.from({ length: 20 }, (_, index) =>
      onAbort(controller.signal, () => ran.push(index)),
    );
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    forgets[3]!();
    forgets[3]!();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort();
    expect(ran).toEqual(Array.from({ length: 20 }, (_, index) => index).filter((index) => index !== 3));
    for (const forget of forgets) forget();

    const quiet = new AbortController();
    const waits = Array.from({ length: 20 }, () => onAbort(quiet.signal, () => ran.push(-1)));
    for (const forget of waits) forget();
    expect(getEventListeners(quiet.signal, "abort")).toHaveLength(0);
    quiet.abort();
    expect(ran).not.toContain(-1);
    // A signal whose waits all ended is watched afresh.
    const again = new AbortController();
    onAbort(again.signal, () => ran.push(-2))();
    onAbort(again.signal, () => ran.push(-3));
    expect(getEventListeners(again.signal, "abort")).toHaveLength(1);
    again.abort();
    expect(ran.slice(-1)).toEqual([-3]);
  });

  test("the same function given twice is two waits, and a wait on an aborted signal runs on its own unless forgotten", async () => {
    const controller = new AbortController();
    let runs = 0;
    const callback = () => runs++;
    const first = onAbort(controller.signal, callback);
    onAbort(controller.signal, callback);
    first();
    controller.abort();
    expect(runs).toBe(1);

    onAbort(controller.signal, callback);
    onAbort(controller.signal, callback)();
    expect(runs).toBe(1);
    await microtasks();
    expect(runs).toBe(2);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("sleep on a shared signal", () => {
  test("resolves at its time or at the abort, with one listener however many sleep", async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    let woken = 0;
    const sleeps = Array.from({ length: 20 }, (_, index) =>
      sleep(clock, index < 10 ? 1_000 : 60_000, controller.signal).then(() => woken++),
    );
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    await clock.advance(1_000);
    expect(woken).toBe(10);
    controller.abort();
    await Promise.all(sleeps);
    expect(woken).toBe(20);
    expect(clock.pendingTimers).toBe(0);
    await sleep(clock, 60_000, controller.signal);
  });
});

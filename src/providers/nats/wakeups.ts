import type { Subscription } from "@nats-io/transport-node";
import type { NatsLink } from "./connection.js";

/**
 * Wake-ups for a wait on a subject: a core subscription sees every publish JetStream stores
 * there, from any process. It listens from before the caller looks, so a publish between the
 * look and the wait is not missed.
 */
export class Wakeup {
  readonly #sub: Subscription;
  #woken = false;
  #resolve: (() => void) | undefined;

  constructor(link: NatsLink, subject: string) {
    this.#sub = link.nc.subscribe(subject, {
      callback: () => {
        this.#woken = true;
        this.#resolve?.();
      },
    });
  }

  /** Resolves at the next publish (at once if one came since the last wait), after `ms`, or at abort. */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.#woken || signal.aborted || ms <= 0) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.#resolve = undefined;
        this.#woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      this.#resolve = done;
    });
  }

  /** Stops listening. */
  close(): void {
    this.#sub.unsubscribe();
  }
}

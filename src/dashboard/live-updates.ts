import type { ServerResponse } from "node:http";
import { type Clock, systemClock, type TimerHandle } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import type { DashboardSnapshot } from "./dashboard-api.js";
import { COMMON_HEADERS } from "./http-io.js";

/** How often the counts are read while a page is watching. */
export const DEFAULT_REFRESH_MS = 1_000;

/** What live updates read and how they report a read that failed. */
export interface LiveUpdateOptions {
  readonly snapshot: () => Promise<DashboardSnapshot>;
  /** A failure as the page may show it (secrets removed). */
  readonly describe: (error: unknown) => { code: string; message: string };
  readonly clock?: Clock;
  readonly refreshMs?: number;
}

/**
 * Server-sent events to every open page: a `snapshot` event whenever the queues' counts or the
 * receiver's failed items change, read every `refreshMs` while anyone watches (and at once after
 * a change made through the dashboard), and a `failure` event when they cannot be read.
 */
export class LiveUpdates {
  readonly #options: LiveUpdateOptions;
  readonly #clock: Clock;
  readonly #watchers = new Set<ServerResponse>();
  #timer: TimerHandle | undefined;
  #reading: Promise<void> | undefined;
  #again = false;
  #last: string | undefined;
  #closed = false;

  /** Reads with `options.snapshot` once someone watches. */
  constructor(options: LiveUpdateOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** Opens an event stream on `res` and sends it the current state at once. */
  watch(res: ServerResponse): void {
    if (this.#closed) throw new QueueError("Unsupported", "the dashboard is stopping");
    res.writeHead(200, {
      ...COMMON_HEADERS,
      "content-type": "text/event-stream; charset=utf-8",
      connection: "keep-alive",
    });
    // Tells EventSource how soon to come back after the stream ends (a restart, say).
    res.write("retry: 1000\n\n");
    this.#watchers.add(res);
    res.on("close", () => {
      this.#watchers.delete(res);
      if (this.#watchers.size === 0) this.#stopTimer();
    });
    if (this.#last !== undefined) res.write(this.#last);
    this.refresh();
  }

  /** Reads the state now (after a change, say) and sends it if it changed; a read under way is followed by one more. */
  refresh(): void {
    if (this.#closed || this.#watchers.size === 0) return;
    if (this.#reading !== undefined) {
      this.#again = true;
      return;
    }
    this.#stopTimer();
    this.#reading = this.#read().finally(() => {
      this.#reading = undefined;
      if (this.#again) {
        this.#again = false;
        this.refresh();
      } else this.#schedule();
    });
  }

  /** Ends every stream and stops reading. */
  close(): void {
    this.#closed = true;
    this.#stopTimer();
    for (const res of this.#watchers) res.end();
    this.#watchers.clear();
  }

  /** Reads the state and sends it to every watcher when it differs from what was last sent. */
  async #read(): Promise<void> {
    let event: string;
    try {
      event = `event: snapshot\ndata: ${JSON.stringify(await this.#options.snapshot())}\n\n`;
    } catch (error) {
      event = `event: failure\ndata: ${JSON.stringify({ error: this.#options.describe(error) })}\n\n`;
    }
    if (event === this.#last) return;
    this.#last = event;
    for (const res of this.#watchers) res.write(event);
  }

  /** Arms the next read while anyone watches. */
  #schedule(): void {
    if (this.#closed || this.#watchers.size === 0) return;
    this.#timer = this.#clock.setTimer(
      () => {
        this.#timer = undefined;
        this.refresh();
      },
      this.#options.refreshMs ?? DEFAULT_REFRESH_MS,
      true,
    );
  }

  /** Cancels the next read. */
  #stopTimer(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }
}

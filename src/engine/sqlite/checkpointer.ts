import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** How often the checkpointer copies the write-ahead log back into the database file. */
export const CHECKPOINT_INTERVAL_MS = 100;

// Plain JavaScript so that it runs the same from sources and from the build.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 50");
const checkpoint = (mode) => { try { db.pragma("wal_checkpoint(" + mode + ")"); } catch {} };
const timer = setInterval(() => checkpoint("PASSIVE"), workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  checkpoint("PASSIVE");
  db.close();
  parentPort.close();
});
`;

/**
 * Copies the write-ahead log into the database file on a worker thread. A checkpoint writes and
 * syncs pages; done on the event loop's thread every thousand pages (SQLite's default) it costs
 * about 30 µs per transaction, so the store turns automatic checkpoints off and runs them here.
 */
export class Checkpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;

  /** Starts the thread; `onFailure` runs if it cannot work, so the store can checkpoint by itself again. */
  constructor(path: string, onFailure: () => void, intervalMs = CHECKPOINT_INTERVAL_MS) {
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, intervalMs } });
    this.#exited = new Promise((resolve) => this.#worker.once("exit", () => resolve()));
    this.#worker.unref();
    this.#worker.on("error", onFailure);
  }

  /** Runs a last checkpoint and ends the thread; resolves once the thread has closed its connection and exited. */
  stop(): Promise<void> {
    // Held until it exits, so that a process closing its last store does not end before the thread lets go of the file.
    this.#worker.ref();
    this.#worker.postMessage("stop");
    return this.#exited;
  }
}

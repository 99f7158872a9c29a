import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { QueueError } from "../../core/errors.js";

/** Whether a process with this id is running (one we may not signal still is). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}

/**
 * A lock file naming the process that owns a resource, created exclusively. A lock left by a
 * process that has ended (a crash) is taken over; one held by a running process is refused.
 */
export class ProcessLock {
  readonly #path: string;
  #held = true;

  private constructor(path: string) {
    this.#path = path;
  }

  /** Takes the lock at `path` for `what` (named in the error when another process holds it). */
  static take(path: string, what: string): ProcessLock {
    for (let attempt = 0; attempt < 2; attempt++) {
      let fd: number;
      try {
        fd = openSync(path, "wx");
      } catch (error) {
        if ((error as { code?: unknown }).code !== "EEXIST") throw error;
        const owner = Number.parseInt(readOwner(path), 10);
        if (Number.isSafeInteger(owner) && isRunning(owner))
          throw new QueueError(
            "Configuration",
            `${what} is in use by process ${owner}${owner === process.pid ? " (this one)" : ""}; one process at a time may open it (if that process is not a queue-runtime, remove ${path})`,
          );
        rmSync(path, { force: true });
        continue;
      }
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      return new ProcessLock(path);
    }
    throw new QueueError("Configuration", `${what}: another process keeps taking its lock file ${path}`);
  }

  /** Lets the resource go; later calls do nothing. */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    rmSync(this.#path, { force: true });
  }
}

function readOwner(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

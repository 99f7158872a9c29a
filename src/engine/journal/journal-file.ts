import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { QueueError } from "../../core/errors.js";
import { ProcessLock } from "./process-lock.js";

const NEWLINE = 0x0a;

/** What reading a journal found: its committed transactions, in order, and whether a torn end was cut off. */
export interface JournalContents {
  readonly transactions: unknown[];
  /** Bytes of a transaction whose write a crash interrupted, dropped from the end of the file. */
  readonly tornBytes: number;
}

/**
 * An append-only file of transactions, one line of JSON each, written whole with one `write`
 * per commit. A line is a transaction's all or nothing: a crash can only leave the last one cut
 * short, and reading drops it. One process at a time: a lock file beside it names the owner.
 */
export class JournalFile {
  readonly path: string;
  readonly #sync: boolean;
  readonly #lock: ProcessLock;
  #fd: number;
  #size: number;

  private constructor(path: string, fd: number, lock: ProcessLock, sync: boolean) {
    this.path = path;
    this.#fd = fd;
    this.#lock = lock;
    this.#sync = sync;
    this.#size = fstatSync(fd).size;
  }

  /**
   * Takes the journal at `path` (creating it when missing) and reads what it holds; `sync` makes
   * every append wait for the disk (surviving power loss, not only a crash of this process).
   */
  static open(path: string, sync: boolean): { file: JournalFile; contents: JournalContents } {
    return cannotOpen(path, () => {
      const lock = ProcessLock.take(`${path}.lock`, `the journal ${path}`);
      try {
        const contents = readJournal(path);
        // Append mode writes at the end whatever the offset, so a torn end must go before new lines follow.
        if (contents.tornBytes > 0) cutTornEnd(path, contents.tornBytes);
        return { file: new JournalFile(path, openSync(path, "a"), lock, sync), contents };
      } catch (error) {
        lock.release();
        throw error;
      }
    });
  }

  /** Bytes in the file. */
  get size(): number {
    return this.#size;
  }

  /** Appends one transaction's line (ending in a newline) and, when syncing, waits for the disk. */
  append(line: string): void {
    const bytes = Buffer.from(line);
    writeAll(this.#fd, bytes);
    if (this.#sync) fdatasyncSync(this.#fd);
    this.#size += bytes.length;
  }

  /**
   * Replaces the whole file with `lines` (a snapshot): written beside it, synced, then renamed
   * over it, so a crash at any point leaves either the old journal or the new one whole.
   */
  replace(lines: Iterable<string>): void {
    const next = `${this.path}.next`;
    let size = 0;
    const fd = openSync(next, "w");
    try {
      for (const line of lines) {
        const bytes = Buffer.from(line);
        writeAll(fd, bytes);
        size += bytes.length;
      }
      fsyncSync(fd);
    } catch (error) {
      closeSync(fd);
      rmSync(next, { force: true });
      throw error;
    }
    closeSync(fd);
    renameSync(next, this.path);
    syncDirectory(dirname(this.path));
    closeSync(this.#fd);
    this.#fd = openSync(this.path, "a");
    this.#size = size;
  }

  /** Closes the file and lets another process take it. */
  close(): void {
    closeSync(this.#fd);
    this.#lock.release();
  }
}

/** Opens the journal at `path` with `open`; a failure of the file system (a missing directory, no permission) becomes a `Configuration` error naming the file. */
function cannotOpen<T>(path: string, open: () => T): T {
  try {
    return open();
  } catch (error) {
    if (error instanceof QueueError) throw error;
    throw new QueueError("Configuration", `cannot open the journal ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Reads every whole line of a journal; a last line cut short is reported, a bad line before the end refused. */
function readJournal(path: string): JournalContents {
  if (!existsSync(path)) return { transactions: [], tornBytes: 0 };
  const bytes = readFileSync(path);
  const transactions: unknown[] = [];
  let start = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(NEWLINE, start);
    if (end === -1) return { transactions, tornBytes: bytes.length - start };
    try {
      transactions.push(JSON.parse(bytes.toString("utf8", start, end)));
    } catch (error) {
      // Only the last write can be torn; damage before it is not something to repair silently.
      if (end === bytes.length - 1) return { transactions, tornBytes: bytes.length - start };
      throw new QueueError(
        "Configuration",
        `the journal ${path} is damaged at byte ${start} (${(error as Error).message}); it was not changed`,
        { cause: error },
      );
    }
    start = end + 1;
  }
  return { transactions, tornBytes: 0 };
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written);
}

function cutTornEnd(path: string, tornBytes: number): void {
  const fd = openSync(path, "r+");
  try {
    ftruncateSync(fd, fstatSync(fd).size - tornBytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDirectory(directory: string): void {
  const fd = openSync(directory, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/**
 * Who holds a session lock the endpoint took: its host, process and server instance, written at
 * the start of the lock's token. The SDK's session receiver does not outlive its connection, so
 * a lock whose endpoint is gone (its process killed, with no chance to close it) has no holder
 * and is freed at once, as a clean shutdown would have; message locks are left to end by
 * themselves, as on Azure.
 */
const MARK = "servicebus/";

/** The endpoints running in this process, by instance. */
const running = new Set<string>();

/** A holder for one endpoint's session locks; `end()` when the endpoint closes. */
export interface SessionHolder {
  /** What the tokens of this endpoint's session locks start with. */
  readonly prefix: string;
  end(): void;
}

/** Registers an endpoint starting in this process. */
export function newSessionHolder(): SessionHolder {
  const instance = randomBytes(6).toString("base64url");
  running.add(instance);
  return {
    prefix: `${MARK}${encodeURIComponent(hostname())}/${process.pid}/${instance}/`,
    end: () => running.delete(instance),
  };
}

/**
 * Whether a session lock's token names an endpoint that no longer runs: one of this process that
 * has closed, or one of another process on this host that has ended. A lock of another host, or
 * not taken by an endpoint, is never judged gone: it ends by itself.
 */
export function isHolderGone(lockToken: string): boolean {
  if (!lockToken.startsWith(MARK)) return false;
  const [host, pid, instance] = lockToken.slice(MARK.length).split("/");
  if (host !== encodeURIComponent(hostname()) || instance === undefined) return false;
  const processId = Number(pid);
  if (!Number.isSafeInteger(processId) || processId <= 0) return false;
  // A restarted container often gets its old process id back: then the instance tells them apart.
  if (processId === process.pid) return !running.has(instance);
  return !isProcessRunning(processId);
}

function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

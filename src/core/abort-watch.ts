/** The callbacks of the calls under way on one signal, and the one listener that runs them. */
interface Watchers {
  readonly callbacks: Set<() => void>;
  readonly listener: () => void;
}

// One 'abort' listener per signal, however many calls wait on it: a client's calls all share its
// closing signal, and a listener each would pass Node's limit of ten (MaxListenersExceededWarning)
// with eleven calls under way. Weak, so a signal that is dropped takes its entry with it.
const watched = new WeakMap<AbortSignal, Watchers>();

/**
 * Runs `callback` once if `signal` aborts before the returned function is called; that function
 * forgets it, and removes the signal's listener when it was the last callback waiting on it.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) {
    // An aborted signal fires no more events: the callback runs on its own, unless forgotten first.
    let waiting = true;
    queueMicrotask(() => {
      if (waiting) callback();
    });
    return () => {
      waiting = false;
    };
  }
  let watchers = watched.get(signal);
  if (watchers === undefined) {
    const callbacks = new Set<() => void>();
    const listener = () => {
      watched.delete(signal);
      for (const each of [...callbacks]) each();
      callbacks.clear();
    };
    watchers = { callbacks, listener };
    watched.set(signal, watchers);
    signal.addEventListener("abort", listener, { once: true });
  }
  // A wrapper of its own, so the same function given twice is two waits, each forgotten alone.
  const entry = () => callback();
  const { callbacks, listener } = watchers;
  callbacks.add(entry);
  return () => {
    if (!callbacks.delete(entry) || callbacks.size > 0) return;
    if (watched.get(signal)?.listener === listener) watched.delete(signal);
    signal.removeEventListener("abort", listener);
  };
}

/**
 * Runs `call` with a signal of its own that aborts when `signal` does, and lets go of `signal`
 * once it is done: for a library that leaves a listener on each signal it is given (the Azure
 * SDK's management requests do), so that a long-lived signal does not gather one per call.
 */
export async function withOwnSignal<T>(
  signal: AbortSignal,
  call: (own: AbortSignal) => Promise<T>,
): Promise<T> {
  const own = new AbortController();
  const forget = onAbort(signal, () => own.abort(signal.reason));
  try {
    return await call(own.signal);
  } finally {
    forget();
  }
}

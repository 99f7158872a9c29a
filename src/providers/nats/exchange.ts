import {
  ClosedConnectionError,
  createInbox,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  NoRespondersError,
  type Payload,
  RequestError,
} from "@nats-io/transport-node";

/** One request waiting for the end of the event loop's turn, and the token its answer comes back under. */
interface Outgoing {
  readonly subject: string;
  readonly payload: Payload;
  readonly headers: MsgHdrs | undefined;
  readonly token: string;
}

/** The caller of a request, until its answer comes. */
interface Waiter {
  readonly resolve: (message: Msg) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The provider's requests of the busy paths (sends, settles), sent together: whatever is asked
 * during one turn of the event loop goes out at its end in one write. The library writes after
 * each burst of microtasks, so the steps of concurrent settles, each resuming when its own answer
 * is read, would take a write each (on loopback a write costs the sender the receiver's side too).
 * Answers come back on one reply subscription, without the library's request objects (a timer, a
 * race and an error made per request): the caller times a request out and forgets it
 * ({@link NatsLink.ask}).
 */
export class Exchange {
  readonly #nc: NatsConnection;
  readonly #inbox = `${createInbox()}.`;
  readonly #waiting = new Map<string, Waiter>();
  #queued: Outgoing[] = [];
  #next = 0;

  constructor(nc: NatsConnection) {
    this.#nc = nc;
    nc.subscribe(`${this.#inbox}*`, { callback: (_error, message) => this.#answered(message) });
    // A request under way when the client closes fails then, as the library's would.
    void nc.closed().then(() => {
      for (const waiter of this.#waiting.values()) waiter.reject(new ClosedConnectionError());
      this.#waiting.clear();
    });
  }

  /** A token for {@link request}, to {@link forget} it by. */
  token(): string {
    return (++this.#next).toString(36);
  }

  /** Sends a request with this turn's others; resolves its answer (none listening: a RequestError, as the library's). */
  request(token: string, subject: string, payload: Payload, headers?: MsgHdrs): Promise<Msg> {
    return new Promise<Msg>((resolve, reject) => {
      this.#waiting.set(token, { resolve, reject });
      if (this.#queued.length === 0) setImmediate(() => this.#flush());
      this.#queued.push({ subject, payload, headers, token });
    });
  }

  /** Stops waiting for the answer of `token` (its caller gave up). */
  forget(token: string): void {
    this.#waiting.delete(token);
  }

  #flush(): void {
    const queued = this.#queued;
    this.#queued = [];
    for (const { subject, payload, headers, token } of queued) {
      try {
        this.#nc.publish(subject, payload, { reply: `${this.#inbox}${token}`, headers });
      } catch (error) {
        // Closed meanwhile: the request fails at once.
        this.#waiting.get(token)?.reject(error as Error);
        this.#waiting.delete(token);
      }
    }
  }

  #answered(message: Msg): void {
    const token = message.subject.slice(this.#inbox.length);
    const waiter = this.#waiting.get(token);
    if (waiter === undefined) return;
    this.#waiting.delete(token);
    if (message.headers?.code === 503 && message.data.length === 0)
      waiter.reject(new RequestError("no responders", { cause: new NoRespondersError(message.subject) }));
    else waiter.resolve(message);
  }
}

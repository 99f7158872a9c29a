// Plain node:http calls to a dashboard, with every header under the test's control (Host and
// Origin included, which fetch would set itself), and a reader of its server-sent events.
import { type IncomingMessage, request } from "node:http";
import { TOKEN_HEADER } from "../../src/dashboard/access.js";

/** What a dashboard answered. */
export interface Answer {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly text: string;
  /** The body parsed as JSON (`undefined` when it is not JSON). */
  readonly json: unknown;
}

/** How a call is made: its headers, and a body sent as JSON (a string is sent as it is). */
export interface CallOptions {
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}

/** Calls `method path` on the dashboard at `endpoint`. */
export function call(
  endpoint: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer> {
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === "string"
        ? options.body
        : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    ...(body === undefined || typeof options.body === "string" ? {} : { "content-type": "application/json" }),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, endpoint), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A change with the dashboard's token in its header and its own origin. */
export function change(endpoint: string, token: string, path: string, body: unknown = {}): Promise<Answer> {
  return call(endpoint, "POST", path, {
    headers: { [TOKEN_HEADER]: token, origin: new URL(endpoint).origin },
    body,
  });
}

/** An open event stream: the events received so far, and a way to wait for one. */
export interface EventStream {
  /** Resolves the first event (already received or to come) of `name` whose data passes `test`. */
  next<T>(name: string, test: (data: T) => boolean): Promise<T>;
  close(): void;
}

/** Opens `/dashboard/api/events` and collects its events. */
export function events(endpoint: string): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const received: { name: string; data: unknown }[] = [];
    const waiting = new Set<() => void>();
    const req = request(new URL("/dashboard/api/events", endpoint), (res) => {
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (name !== undefined && data !== undefined) received.push({ name, data: JSON.parse(data) });
        }
        for (const wake of waiting) wake();
      });
      resolve({
        next<T>(name: string, test: (data: T) => boolean): Promise<T> {
          return new Promise((found) => {
            const look = () => {
              const hit = received.find((event) => event.name === name && test(event.data as T));
              if (hit === undefined) return;
              waiting.delete(look);
              found(hit.data as T);
            };
            waiting.add(look);
            look();
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on("error", reject);
    req.end();
  });
}

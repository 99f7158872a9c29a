import { createServer, type Server } from "node:http";
import { endpointOf, listen } from "../server/http-listener.js";
import type { Dashboard } from "./dashboard.js";

/** The dashboard on a port of its own (`queue-runtime dashboard`). */
export class DashboardServer {
  readonly #http: Server;
  readonly #dashboard: Dashboard;
  readonly #answering = new Set<Promise<void>>();

  /** Wraps `dashboard` in an HTTP server that has not started listening. */
  private constructor(dashboard: Dashboard) {
    this.#dashboard = dashboard;
    this.#http = createServer((req, res) => {
      const answer = dashboard.handle(req, res).finally(() => this.#answering.delete(answer));
      this.#answering.add(answer);
    });
  }

  /** Starts serving `dashboard` on `host`:`port` (0 picks a free port); resolves once it listens. */
  static async start(dashboard: Dashboard, host: string, port: number): Promise<DashboardServer> {
    const server = new DashboardServer(dashboard);
    await listen(server.#http, port, host);
    return server;
  }

  /** `http://host:port` where the dashboard answers. */
  get endpoint(): string {
    return endpointOf(this.#http);
  }

  /** Stops listening, ends the open event streams and waits for the changes under way; the queue client stays open. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#http.close(() => resolve()));
    this.#dashboard.close();
    this.#http.closeIdleConnections();
    await Promise.all(this.#answering);
    this.#http.closeAllConnections();
    await closed;
  }
}

import type rhea from "rhea";

/** What the endpoint knows of one AMQP connection: the audiences its tokens grant, and where replies go. */
export class ConnectionState {
  /** Audience (lower case, without scheme and host) → when its token expires, ms since the epoch. */
  readonly #grants = new Map<string, number>();
  /** The connection's senders, by link name and by target address: a request's `reply_to` names one. */
  readonly #replyLinks = new Map<string, rhea.Sender>();

  /** Records that a token grants `audience` until `expiresAt`. */
  grant(audience: string, expiresAt: number): void {
    this.#grants.set(pathOf(audience), expiresAt);
  }

  /** Whether a token held at `now` grants the entity at `path` (a namespace-wide token grants every path). */
  isGranted(path: string, now: number): boolean {
    const wanted = path.toLowerCase().replace(/^\/+|\/+$/g, "");
    for (const [granted, expiresAt] of this.#grants) {
      if (expiresAt <= now) continue;
      if (granted === "" || wanted === granted || wanted.startsWith(`${granted}/`)) return true;
    }
    return false;
  }

  /** Remembers a sender a request may name as its `reply_to`. */
  addReplyLink(sender: rhea.Sender): void {
    this.#replyLinks.set(sender.name, sender);
    const address = sender.target?.address;
    if (typeof address === "string") this.#replyLinks.set(address, sender);
  }

  /** Forgets a sender that closed. */
  removeReplyLink(sender: rhea.Sender): void {
    for (const [key, link] of this.#replyLinks) if (link === sender) this.#replyLinks.delete(key);
  }

  /** The sender a reply to `replyTo` goes on. */
  replyLink(replyTo: unknown): rhea.Sender | undefined {
    return typeof replyTo === "string" ? this.#replyLinks.get(replyTo) : undefined;
  }
}

/** The path of an audience URI (`sb://localhost:5672/orders` → `orders`), lower case. */
export function pathOf(audience: string): string {
  const withoutScheme = audience.replace(/^[a-z]+:\/\//i, "");
  const slash = withoutScheme.indexOf("/");
  const path = slash < 0 ? "" : withoutScheme.slice(slash + 1);
  return path.toLowerCase().replace(/^\/+|\/+$/g, "");
}

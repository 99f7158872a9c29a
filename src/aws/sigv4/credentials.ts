import { inspect } from "node:util";

/** AWS credentials. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working; they are fetched again before then. */
  expiration?: Date;
}

const REDACTED = "[redacted]";

/**
 * AWS credentials that never show their secret: `console.log`, `util.inspect`, `JSON.stringify`
 * and `String()` print the access key id and `[redacted]` for the secret and the session token.
 */
export class SigV4Credentials implements AwsCredentials {
  readonly accessKeyId: string;
  readonly expiration: Date | undefined;
  readonly #secretAccessKey: string;
  readonly #sessionToken: string | undefined;

  /** Wraps the given key pair (and optional session token) without copying it anywhere visible. */
  constructor(credentials: AwsCredentials) {
    this.accessKeyId = credentials.accessKeyId;
    this.#secretAccessKey = credentials.secretAccessKey;
    this.#sessionToken = credentials.sessionToken;
    this.expiration = credentials.expiration;
  }

  /** Returns `credentials` when they are already wrapped, a wrapped copy otherwise. */
  static from(credentials: AwsCredentials): SigV4Credentials {
    return credentials instanceof SigV4Credentials ? credentials : new SigV4Credentials(credentials);
  }

  /** The secret access key. */
  get secretAccessKey(): string {
    return this.#secretAccessKey;
  }

  /** The session token of temporary credentials, if any. */
  get sessionToken(): string | undefined {
    return this.#sessionToken;
  }

  /** The redacted form used by `JSON.stringify`. */
  toJSON(): Record<string, string | undefined> {
    return {
      accessKeyId: this.accessKeyId,
      secretAccessKey: REDACTED,
      sessionToken: this.#sessionToken === undefined ? undefined : REDACTED,
      expiration: this.expiration?.toISOString(),
    };
  }

  /** The redacted form used by string conversion. */
  toString(): string {
    return `SigV4Credentials(${this.accessKeyId})`;
  }

  /** The redacted form used by `util.inspect` and `console.log`. */
  [inspect.custom](): string {
    return `SigV4Credentials ${inspect(this.toJSON())}`;
  }
}

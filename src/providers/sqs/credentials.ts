import { inspect } from "node:util";
import type { AwsCredentials } from "../../aws/sigv4/credentials.js";
import { SigV4Credentials } from "../../aws/sigv4/credentials.js";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";

/** What `provider.credentials` may be: a key pair, or a function in the style of `@aws-sdk/credential-providers`. */
export type CredentialsInput = AwsCredentials | (() => Promise<AwsCredentials>);

/** Temporary credentials are fetched again this long before they expire (as the AWS SDKs do). */
export const REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;
/** After a failed refresh, still-valid credentials are used this long before the next try. */
export const REFRESH_RETRY_MS = 10_000;
/** The longest a credentials function may take before the request that needed it fails. */
export const CREDENTIALS_TIMEOUT_MS = 30_000;

/** Where the credentials came from; shown instead of them. */
export const CREDENTIAL_ORIGINS = ["static", "environment", "provider"] as const;

/** The origin of a {@link CredentialSource}. */
export type CredentialOrigin = (typeof CREDENTIAL_ORIGINS)[number];

/**
 * The credentials requests are signed with: a fixed key pair, or a function called when they are
 * first needed and again shortly before they expire. Concurrent callers share one refresh. It
 * prints as its origin only, never as a key.
 */
export class CredentialSource {
  readonly #origin: CredentialOrigin;
  readonly #fetch: (() => Promise<AwsCredentials>) | undefined;
  readonly #clock: Clock;
  #current: SigV4Credentials | undefined;
  #refreshing: Promise<SigV4Credentials> | undefined;
  #retryAt = 0;

  private constructor(
    origin: CredentialOrigin,
    clock: Clock,
    fixed: AwsCredentials | undefined,
    fetch: (() => Promise<AwsCredentials>) | undefined,
  ) {
    this.#origin = origin;
    this.#clock = clock;
    this.#fetch = fetch;
    this.#current = fixed === undefined ? undefined : checked(fixed, origin);
  }

  /**
   * The source for a provider config: the given key pair or function, else `AWS_ACCESS_KEY_ID` /
   * `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN` from `env`; `Configuration` when there are none.
   */
  static from(input: CredentialsInput | undefined, env: NodeJS.ProcessEnv, clock: Clock): CredentialSource {
    if (typeof input === "function") return new CredentialSource("provider", clock, undefined, input);
    if (input !== undefined) {
      if (typeof input !== "object" || input === null)
        throw new QueueError(
          "Configuration",
          "provider.credentials must be { accessKeyId, secretAccessKey } or a function returning them",
        );
      return new CredentialSource("static", clock, input, undefined);
    }
    const accessKeyId = env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey)
      throw new QueueError(
        "Configuration",
        "no AWS credentials: pass provider.credentials (a key pair or a function such as fromNodeProviderChain() of @aws-sdk/credential-providers) or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
      );
    const sessionToken = env.AWS_SESSION_TOKEN;
    return new CredentialSource(
      "environment",
      clock,
      { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
      undefined,
    );
  }

  /** Where the credentials come from. */
  get origin(): CredentialOrigin {
    return this.#origin;
  }

  /**
   * Credentials to sign with now: the cached ones while they are fresh, otherwise the result of a
   * refresh (shared by concurrent callers). Still-valid credentials are used while a refresh runs
   * or after one failed; with none valid the call fails with `Authentication`.
   */
  get(): SigV4Credentials | Promise<SigV4Credentials> {
    const current = this.#current;
    const now = this.#clock.now();
    if (current !== undefined && !this.#stale(current, now)) return current;
    if (current !== undefined && !expired(current, now)) {
      if (this.#refreshing === undefined && now >= this.#retryAt)
        this.#refresh().catch(() => {
          this.#retryAt = this.#clock.now() + REFRESH_RETRY_MS;
        });
      return current;
    }
    return this.#refresh();
  }

  #stale(credentials: SigV4Credentials, now: number): boolean {
    if (this.#fetch === undefined || credentials.expiration === undefined) return false;
    return now >= credentials.expiration.getTime() - REFRESH_BEFORE_EXPIRY_MS;
  }

  #refresh(): Promise<SigV4Credentials> {
    if (this.#refreshing !== undefined) return this.#refreshing;
    const fetch = this.#fetch;
    if (fetch === undefined)
      return Promise.reject(
        new QueueError("Authentication", `the ${this.#origin} AWS credentials have expired`),
      );
    this.#refreshing = withTimeout(fetch)
      .then((fetched) => {
        const credentials = checked(fetched, "provider");
        this.#current = credentials;
        return credentials;
      })
      .finally(() => {
        this.#refreshing = undefined;
      });
    return this.#refreshing;
  }

  /** The redacted form used by `JSON.stringify`. */
  toJSON(): Record<string, string> {
    return { origin: this.#origin };
  }

  /** The redacted form used by `util.inspect` and `console.log`. */
  [inspect.custom](): string {
    return `CredentialSource(${this.#origin})`;
  }
}

function expired(credentials: SigV4Credentials, now: number): boolean {
  return credentials.expiration !== undefined && now >= credentials.expiration.getTime();
}

// Names the fields that are wrong, never their values.
function checked(credentials: AwsCredentials, origin: CredentialOrigin): SigV4Credentials {
  const value = credentials as Partial<Record<keyof AwsCredentials, unknown>> | null;
  const problem =
    typeof value !== "object" || value === null
      ? "are not an object"
      : typeof value.accessKeyId !== "string" || value.accessKeyId === ""
        ? "have no accessKeyId"
        : typeof value.secretAccessKey !== "string" || value.secretAccessKey === ""
          ? "have no secretAccessKey"
          : value.sessionToken !== undefined && typeof value.sessionToken !== "string"
            ? "have a sessionToken that is not a string"
            : value.expiration !== undefined &&
                (!(value.expiration instanceof Date) || Number.isNaN(value.expiration.getTime()))
              ? "have an expiration that is not a valid Date"
              : undefined;
  if (problem !== undefined) {
    const code = origin === "provider" ? "Authentication" : "Configuration";
    throw new QueueError(code, `the ${origin} AWS credentials ${problem}`);
  }
  return SigV4Credentials.from(credentials);
}

function withTimeout(fetch: () => Promise<AwsCredentials>): Promise<AwsCredentials> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new QueueError(
            "Timeout",
            `the AWS credentials provider did not answer within ${CREDENTIALS_TIMEOUT_MS} ms`,
          ),
        ),
      CREDENTIALS_TIMEOUT_MS,
    );
    timer.unref();
    let pending: Promise<AwsCredentials>;
    try {
      pending = Promise.resolve(fetch());
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (credentials) => {
        clearTimeout(timer);
        resolve(credentials);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(
          QueueError.is(error)
            ? error
            : new QueueError("Authentication", "the AWS credentials provider failed", { cause: error }),
        );
      },
    );
  });
}

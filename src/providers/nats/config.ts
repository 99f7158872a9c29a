import type { EngineProviderOptions } from "../../rules/queue-defaults.js";

/** TLS for the NATS connection (`tls://` URLs turn it on with the system's trust store). */
export interface NatsTlsConfig {
  /** PEM of the certificate authorities to trust instead of the system's. */
  ca?: string;
  /** PEM of a client certificate, with `key`, for servers that ask for one. */
  cert?: string;
  key?: string;
}

/** NATS with JetStream: a work-queue stream per queue, its catalog and sessions in KV buckets. */
export interface NatsProviderConfig extends EngineProviderOptions {
  type: "nats";
  /** `nats://127.0.0.1:4222` (or `tls://...`), or several servers of one cluster. */
  servers: string | string[];
  /** Namespaces every stream, subject and bucket the provider makes (default `qr`): letters, digits, `_` and `-`. */
  streamPrefix?: string;
  user?: string;
  pass?: string;
  token?: string;
  /** TLS options; `true` turns TLS on with the defaults. */
  tls?: NatsTlsConfig | true;
}

declare module "../../core/config.js" {
  interface ProviderConfigs {
    nats: NatsProviderConfig;
  }
}

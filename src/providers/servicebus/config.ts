/** A source of Azure AD tokens, as `@azure/identity`'s credentials are (`DefaultAzureCredential`, ...). */
export interface ServiceBusTokenCredential {
  getToken(
    scopes: string | string[],
    options?: { abortSignal?: AbortSignal },
  ): Promise<{ token: string; expiresOnTimestamp: number } | null>;
}

/** What every Service Bus config may add to its connection. */
interface ServiceBusCommonConfig {
  type: "servicebus";
  /**
   * The management (ATOM) endpoint the admin calls go to, such as `http://127.0.0.1:5300`. By
   * default the namespace itself over HTTPS, or for a connection string with
   * `UseDevelopmentEmulator=true` its host on port 5300 over plain HTTP, as the official emulator serves it.
   */
  administrationEndpoint?: string;
}

/** Azure Service Bus (or `queue-runtime serve --servicebus`, or the official emulator) by connection string. */
export interface ServiceBusConnectionStringConfig extends ServiceBusCommonConfig {
  /** `Endpoint=sb://<namespace>/;SharedAccessKeyName=...;SharedAccessKey=...`; never shown in errors or logs. */
  connectionString: string;
}

/** Azure Service Bus through Azure AD: a namespace and a token credential. */
export interface ServiceBusCredentialConfig extends ServiceBusCommonConfig {
  /** `<namespace>.servicebus.windows.net`. */
  fullyQualifiedNamespace: string;
  credential: ServiceBusTokenCredential;
}

/** Azure Service Bus. */
export type ServiceBusProviderConfig = ServiceBusConnectionStringConfig | ServiceBusCredentialConfig;

declare module "../../core/config.js" {
  interface ProviderConfigs {
    servicebus: ServiceBusProviderConfig;
  }
}

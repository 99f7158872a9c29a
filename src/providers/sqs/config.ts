import type { AwsCredentials } from "../../aws/sigv4/credentials.js";

/** Amazon SQS, or any service speaking its JSON protocol (such as `queue-runtime serve`). */
export interface SqsProviderConfig {
  type: "sqs";
  region?: string;
  /** `http(s)://host:port`; by default AWS's endpoint for the region. */
  endpoint?: string;
  credentials?: AwsCredentials | (() => Promise<AwsCredentials>);
  accountId?: string;
}

declare module "../../core/config.js" {
  interface ProviderConfigs {
    sqs: SqsProviderConfig;
  }
}

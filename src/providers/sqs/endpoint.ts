import { regionFromHost } from "../../aws/sigv4/region.js";
import { QueueError } from "../../core/errors.js";
import type { SqsProviderConfig } from "./config.js";

/** Where requests go and which region they are signed for. */
export interface SqsEndpoint {
  /** `http(s)://host[:port]`, without a path. */
  readonly url: URL;
  readonly region: string;
}

// The region names a host when the endpoint is AWS's own, so it must be a host label.
const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d+$/;

/**
 * The endpoint of a config: `endpoint` as given (its region from `region`, the environment, or
 * its host), or AWS's own `https://sqs.<region>.amazonaws.com` for the region from `region`,
 * `AWS_REGION` or `AWS_DEFAULT_REGION`.
 */
export function resolveEndpoint(config: SqsProviderConfig, env: NodeJS.ProcessEnv): SqsEndpoint {
  const configured = config.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (config.endpoint === undefined) {
    if (configured === undefined)
      throw new QueueError(
        "Configuration",
        "the sqs provider needs a region: set provider.region, AWS_REGION or AWS_DEFAULT_REGION, or give an endpoint",
      );
    if (!REGION.test(configured))
      throw new QueueError(
        "Configuration",
        `${JSON.stringify(configured)} is not an AWS region such as eu-west-1`,
      );
    return { url: new URL(`https://sqs.${configured}.amazonaws.com`), region: configured };
  }
  let url: URL;
  try {
    url = new URL(config.endpoint);
  } catch {
    throw new QueueError("Configuration", "provider.endpoint is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new QueueError("Configuration", "provider.endpoint must be an http:// or https:// URL");
  // Userinfo is refused too: a password in a URL would end up in logs.
  if ((url.pathname !== "/" && url.pathname !== "") || url.search !== "" || url.username !== "")
    throw new QueueError("Configuration", "provider.endpoint names a scheme, host and port only");
  return { url, region: configured ?? regionFromHost(url.host) };
}

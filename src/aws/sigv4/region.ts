/** The region AWS uses when a host names none (the global endpoints and anything that is not AWS). */
export const DEFAULT_REGION = "us-east-1";

const AWS_DOMAINS = [".amazonaws.com", ".amazonaws.com.cn", ".api.aws"] as const;
const REGION_LABEL = /^[a-z]{2}(?:-[a-z]+)*-[a-z]+-\d+$/;

/**
 * The region named by an AWS host such as `sqs.eu-west-1.amazonaws.com`,
 * `eu-west-1.queue.amazonaws.com` or `sqs.eu-west-1.api.aws` (a port is ignored);
 * `us-east-1` for global endpoints and for any host that is not AWS's.
 */
export function regionFromHost(host: string): string {
  const name = stripPort(host).toLowerCase();
  const domain = AWS_DOMAINS.find((suffix) => name.endsWith(suffix));
  if (domain === undefined) return DEFAULT_REGION;
  for (const label of name.slice(0, -domain.length).split(".")) {
    if (REGION_LABEL.test(label)) return label;
  }
  return DEFAULT_REGION;
}

function stripPort(host: string): string {
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  const colon = host.lastIndexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

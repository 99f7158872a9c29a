import type { AmqpMessage } from "./amqp-message.js";
import type { ConnectionState } from "./connection-state.js";
import { checkSasToken, parseSasToken, type SasKey } from "./sas.js";

/** What a `$cbs` request is answered with. */
export interface CbsAnswer {
  readonly statusCode: number;
  readonly description: string;
}

const SAS_TOKEN_TYPE = "servicebus.windows.net:sastoken";

/**
 * Answers a CBS `put-token`: checks a SAS token against the server's key (or, without a key,
 * accepts any token) and records on the connection the audience it grants until it expires.
 */
export function putToken(
  state: ConnectionState,
  request: AmqpMessage,
  key: SasKey | null,
  now: number,
): CbsAnswer {
  const properties = request.application_properties ?? {};
  if (properties.operation !== "put-token")
    return { statusCode: 400, description: `unknown CBS operation ${JSON.stringify(properties.operation)}` };
  const audience = properties.name;
  const token = request.body;
  if (typeof audience !== "string" || typeof token !== "string")
    return {
      statusCode: 400,
      description: "put-token needs the audience as `name` and the token as the body",
    };
  if (key === null) {
    state.grant(audience, Number.POSITIVE_INFINITY);
    return { statusCode: 202, description: "Accepted" };
  }
  if (properties.type !== SAS_TOKEN_TYPE)
    return {
      statusCode: 401,
      description: `this server checks SAS tokens (${SAS_TOKEN_TYPE}), not ${String(properties.type)}: use a connection string with SharedAccessKey`,
    };
  const refusal = checkSasToken(token, key, audience, now);
  if (refusal !== undefined) return { statusCode: 401, description: `Unauthorized: ${refusal}` };
  state.grant(audience, parseSasToken(token)!.expiry * 1_000);
  return { statusCode: 202, description: "Accepted" };
}

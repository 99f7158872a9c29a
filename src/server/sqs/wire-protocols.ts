import {
  AWS_JSON_1_0,
  bodyText,
  decodeQueryRequest,
  decodeSqsRequest,
  type EncodedSqsError,
  encodeQueryError,
  encodeQueryResponse,
  encodeSqsError,
  encodeSqsResponse,
  FORM_CONTENT_TYPE,
  getHeader,
  type HttpHeaders,
  QUERY_CONTENT_TYPE,
  type SqsOperation,
  type SqsRequest,
  sqsError,
} from "../../aws/index.js";

/** A received HTTP request, as much of it as a protocol reads. */
export interface ReceivedRequest {
  readonly method: string;
  /** The path as received, without the query. */
  readonly path: string;
  /** The raw query string, without `?`. */
  readonly query: string;
  readonly headers: HttpHeaders;
  readonly body: Uint8Array;
  /** `http://host:port` the client reached the server at. */
  readonly origin: string;
}

/** How one protocol carries SQS calls over HTTP: reading a request, writing a result or an error. */
export interface WireProtocol {
  readonly name: "json" | "query";
  decode(request: ReceivedRequest): SqsRequest;
  result(operation: SqsOperation, output: unknown, requestId: string): { contentType: string; body: string };
  error(error: unknown, requestId: string): EncodedSqsError;
}

/** AWS JSON 1.0: what the SDKs speak since late 2023. */
const JSON_PROTOCOL: WireProtocol = {
  name: "json",
  decode(request) {
    if (request.method !== "POST")
      throw sqsError("UnsupportedOperation", `${request.method} is not supported: send POST.`);
    return decodeSqsRequest(request.headers, request.body);
  },
  result: (operation, output) => ({
    contentType: AWS_JSON_1_0,
    body: encodeSqsResponse(operation, output as never),
  }),
  error: (error, requestId) => encodeSqsError(error, requestId),
};

/** A path naming a queue (`/<account>/<name>`), where older clients send that queue's operations. */
const QUEUE_PATH = /^\/[^/]+\/[^/]+$/;

/** The AWS query protocol: form-encoded parameters in, XML out, as SDKs from before the JSON protocol speak it. */
const QUERY_PROTOCOL: WireProtocol = {
  name: "query",
  decode(request) {
    if (request.method !== "POST" && request.method !== "GET")
      throw sqsError("UnsupportedOperation", `${request.method} is not supported: send POST or GET.`);
    const parameters = new URLSearchParams(request.query);
    if (request.method === "POST")
      for (const [name, value] of new URLSearchParams(bodyText(request.body))) parameters.append(name, value);
    const queueUrl = QUEUE_PATH.test(request.path) ? `${request.origin}${request.path}` : undefined;
    return decodeQueryRequest(parameters, queueUrl);
  },
  result: (operation, output, requestId) => ({
    contentType: QUERY_CONTENT_TYPE,
    body: encodeQueryResponse(operation, output as never, requestId),
  }),
  error: (error, requestId) => encodeQueryError(error, requestId),
};

/** A query string naming an `Action` (read without parsing it: the protocol parses it once chosen). */
const GET_ACTION = /(?:^|&)Action=/;

/**
 * The protocol of a request: the query protocol for a form-encoded body or a GET naming an
 * `Action`, the JSON protocol for everything else (which answers what it cannot read with its
 * own errors).
 */
export function wireProtocolOf(
  method: string | undefined,
  headers: HttpHeaders,
  query: string,
): WireProtocol {
  const contentType = getHeader(headers, "content-type");
  if (contentType?.toLowerCase().startsWith(FORM_CONTENT_TYPE)) return QUERY_PROTOCOL;
  if (method === "GET" && GET_ACTION.test(query)) return QUERY_PROTOCOL;
  return JSON_PROTOCOL;
}

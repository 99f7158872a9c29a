export { mapKeyName, QUERY_MEMBER_NAMES, queryName } from "./query-names.js";
export { decodeQueryRequest, FORM_CONTENT_TYPE } from "./query-request.js";
export {
  encodeQueryError,
  encodeQueryResponse,
  escapeXml,
  QUERY_CONTENT_TYPE,
  SQS_XML_NAMESPACE,
} from "./query-response.js";

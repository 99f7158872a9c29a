export { mapKeyName, QUERY_MEMBER_NAMES, queryName } from "./query-names.js";
export { decodeQueryRequest, FORM_CONTENT_TYPE } from "./query-request.js";
export {
  encodeQueryError,
  encodeQueryResponse,
  QUERY_CONTENT_TYPE,
} from "./query-response.js";

export type { ParsedAuthorization } from "./authorization.js";
export { formatAuthorization, parseAuthorization } from "./authorization.js";
export type { CanonicalRequestParts } from "./canonical-request.js";
export {
  canonicalRequest,
  credentialScope,
  formatAmzDate,
  parseAmzDate,
  SCOPE_TERMINATOR,
  SIGV4_ALGORITHM,
  sha256Hex,
  stringToSign,
  UNSIGNED_PAYLOAD,
} from "./canonical-request.js";
export { canonicalQueryString, canonicalUri, splitRequestTarget, uriEncode } from "./canonical-uri.js";
export { SigV4Credentials } from "./credentials.js";
export type { HttpHeaders } from "./headers.js";
export { canonicalHeaders, canonicalHeaderValue, forEachHeader, getHeader } from "./headers.js";
export { DEFAULT_REGION, regionFromHost } from "./region.js";
export type { SignableRequest, SignedHeaders, SigV4SignerOptions } from "./signer.js";
export { SigV4Signer } from "./signer.js";
export { deriveSigningKey, SigningKeyCache, signatureOf } from "./signing-key.js";
export type { SigV4ErrorCode } from "./verification-errors.js";
export { isSigV4Error, SIGV4_ERROR_CODES, sigV4Error } from "./verification-errors.js";
export type { SecretLookup, SigV4VerifierOptions, VerifiableRequest, VerifiedRequest } from "./verifier.js";
export { credentialsLookup, SigV4Verifier } from "./verifier.js";

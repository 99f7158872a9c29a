/**
 * A pushed message's body as bytes: bytes as they are, text as UTF-8, and any other value a
 * platform decoded for us (Cloudflare's `json` content type) as its JSON again.
 */
export function pushedBody(body: unknown): Uint8Array | string {
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  try {
    return JSON.stringify(body) ?? String(body);
  } catch {
    return String(body);
  }
}

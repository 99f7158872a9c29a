/** A request or response body as text, decoding bytes as UTF-8 without copying them first. */
export function bodyText(body: string | Uint8Array): string {
  if (typeof body === "string") return body;
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
}

import type { IncomingMessage } from "node:http";
import { getHeader } from "../aws/index.js";
import { QueueError } from "../core/errors.js";

/** Reads a request body, refusing one over `maxBytes` (with `tooLarge(bytes)`) before reading it whole. */
export function readRequestBody(
  req: IncomingMessage,
  maxBytes: number,
  tooLarge: (bytes: number) => Error,
): Promise<Buffer> {
  // From the raw headers: `req.headers` builds an object of every header on first use.
  const declared = Number(getHeader(req.rawHeaders, "content-length") ?? 0);
  if (declared > maxBytes) return Promise.reject(tooLarge(declared));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        reject(tooLarge(size));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", (error) => reject(new QueueError("ConnectionFailed", error.message, { cause: error })));
  });
}

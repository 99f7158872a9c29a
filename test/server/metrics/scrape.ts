// A scrape as Prometheus makes it: GET /metrics, which must answer 200 with text of format 0.0.4.
import { expect } from "vitest";
import { call } from "../../dashboard/http-client.js";
import { type Exposition, parseExposition, samplesOf } from "./prometheus-parse.js";

/** Scrapes `endpoint` (addressed to `host` when given) and parses what it answered. */
export async function scrape(endpoint: string, host?: string): Promise<Exposition> {
  const answer = await call(endpoint, "GET", "/metrics", host === undefined ? {} : { headers: { host } });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(answer.text);
}

/** The one `queue_runtime_queue_messages` value of `queue` in `state` (NaN when there is none). */
export function messagesGauge(exposition: Exposition, queue: string, state: string): number {
  const [sample, ...more] = samplesOf(exposition, "queue_runtime_queue_messages", { queue, state });
  expect(more).toEqual([]);
  return sample?.value ?? Number.NaN;
}

import type { ParkReason, Problem } from "../problems.js";
import type { FailedItem } from "./receiving-store.js";

/** A parked message as both stores select it. */
export interface ParkedRow {
  id: number | string;
  queue: string;
  reason: string;
  problems: string;
  event: string | null;
  type_at: string | null;
  body: Uint8Array;
  failed_at: number | string;
}

/** A failed delivery as both stores select it. */
export interface FailedDeliveryRow {
  id: number | string;
  subscriber: string;
  event: string;
  last_error: string | null;
  attempts: number;
  failed_at: number | string;
}

/** The item of a parked row. */
export function parkedItem(row: ParkedRow): FailedItem {
  return {
    kind: "parked",
    id: Number(row.id),
    queue: row.queue,
    reason: row.reason as ParkReason,
    problems: JSON.parse(row.problems) as Problem[],
    event: row.event ?? undefined,
    typeAt: row.type_at ?? undefined,
    // A copy as a plain Uint8Array: drivers hand out Buffers over pooled memory.
    body: new Uint8Array(row.body),
    failedAt: Number(row.failed_at),
  };
}

/** The item of a failed delivery row. */
export function deliveryItem(row: FailedDeliveryRow): FailedItem {
  return {
    kind: "delivery",
    id: Number(row.id),
    subscriber: row.subscriber,
    event: row.event,
    error: row.last_error ?? "error",
    attempts: row.attempts,
    failedAt: Number(row.failed_at),
  };
}

/** Parked messages and failed deliveries together, oldest failure first. */
export function byFailure(parked: readonly FailedItem[], deliveries: readonly FailedItem[]): FailedItem[] {
  return [...parked, ...deliveries].sort((a, b) => a.failedAt - b.failedAt || a.id - b.id);
}

import type { ItemRef } from "./stores/receiving-store.js";

/** The id an operator sees for a delivery (`d-12`), the same as its subscriber's `deliveryId`. */
export function deliveryIdOf(id: number): string {
  return `d-${id}`;
}

/** The id an operator sees for a parked message (`p-7`). */
export function parkedIdOf(id: number): string {
  return `p-${id}`;
}

/** The item an operator's id names, or `undefined` when it names none. */
export function itemOf(id: unknown): ItemRef | undefined {
  if (typeof id !== "string") return undefined;
  const match = /^([pd])-([1-9][0-9]{0,15})$/.exec(id);
  if (match === null) return undefined;
  return { kind: match[1] === "p" ? "parked" : "delivery", id: Number(match[2]) };
}

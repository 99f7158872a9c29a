import { type Clock, systemClock } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import { deliveryIdOf, itemOf, parkedIdOf } from "./item-ids.js";
import { bodyPath, readPath } from "./paths.js";
import type { ParkReason, Problem } from "./problems.js";
import type { FailedItem, ReceivingStore } from "./stores/receiving-store.js";

/** What an operator sees of a failed delivery or a parked message. */
export interface DeliveryItem {
  /** `d-<n>` for a delivery, `p-<n>` for a parked message: what `retry` and `dismiss` take. */
  readonly id: string;
  readonly kind: "parked" | "delivery";
  readonly status: "failed";
  /** `queue warehouse_queue · OrderShipped`, or `subscriber billing · OrderShipped`. */
  readonly label: string;
  /** A parked message's `unlisted_type | unreadable | too_large`; a delivery's last error code. */
  readonly reason: ParkReason | string;
  /** Where and which rule, for a parked message (`[]` unless `unreadable`); never a value. */
  readonly problems?: readonly Problem[];
  /** A parked message's body, byte for byte. */
  readonly body?: Uint8Array;
}

/** Between the parts of a label. */
export const LABEL_SEPARATOR = " · ";

/** What an operator does with failed deliveries and parked messages; `receiver.deliveries`, or on a store of its own for tools. */
export class Deliveries {
  readonly #store: ReceivingStore;
  readonly #clock: Clock;

  /** Works on `store`, with `clock` for when items are retried and dismissed. */
  constructor(store: ReceivingStore, clock: Clock = systemClock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Every failed delivery and parked message, oldest failure first; retried and dismissed ones are not failed. */
  async list(): Promise<DeliveryItem[]> {
    return (await this.#store.failedItems()).map(toItem);
  }

  /** Makes a failed item pending: a delivery runs again on the next tick, a parked message is read again by it. */
  async retry(id: string): Promise<void> {
    const item = itemOf(id);
    if (item === undefined || !(await this.#store.retry(item, this.#clock.now()))) throw notListed(id);
  }

  /** Sets a failed item aside; it is deleted by the first tick 30 days later. */
  async dismiss(id: string): Promise<void> {
    const item = itemOf(id);
    if (item === undefined || !(await this.#store.dismiss(item, this.#clock.now()))) throw notListed(id);
  }
}

function notListed(id: unknown): QueueError {
  return new QueueError(
    "MessageNotFound",
    `no failed delivery or parked message has id ${JSON.stringify(id)} (deliveries list shows the ids)`,
  );
}

function toItem(item: FailedItem): DeliveryItem {
  if (item.kind === "delivery")
    return {
      id: deliveryIdOf(item.id),
      kind: "delivery",
      status: "failed",
      label: `subscriber ${item.subscriber}${LABEL_SEPARATOR}${item.event}`,
      reason: item.error,
    };
  return {
    id: parkedIdOf(item.id),
    kind: "parked",
    status: "failed",
    label: parkedLabel(item),
    reason: item.reason,
    problems: item.problems,
    body: item.body,
  };
}

/** `queue <name> · <Event>`, `queue <name> · <type as read>` for an unlisted type, or `queue <name>`. */
function parkedLabel(item: Extract<FailedItem, { kind: "parked" }>): string {
  const queue = `queue ${item.queue}`;
  if (item.event !== undefined) return `${queue}${LABEL_SEPARATOR}${item.event}`;
  // The type is read from the kept body when listed, so that no column but the body's holds a value of it.
  const type = item.typeAt === undefined ? undefined : typeIn(item.body, item.typeAt);
  return type === undefined ? queue : `${queue}${LABEL_SEPARATOR}${type}`;
}

function typeIn(body: Uint8Array, typeAt: string): string | undefined {
  try {
    const type = readPath(JSON.parse(Buffer.from(body).toString("utf8")), bodyPath("typeAt", typeAt));
    return typeof type === "string" ? type : undefined;
  } catch {
    return undefined;
  }
}

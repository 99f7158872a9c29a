import type { Attributes } from "@opentelemetry/api";
import { BoundedCache } from "../bounded-cache.js";
import { QueueError } from "../errors.js";
import type { ProviderTelemetry } from "../provider.js";
import { ATTRIBUTES, type OperationType } from "./attribute-names.js";

/** Operations of distinct destinations remembered at once (more only costs building their attributes again). */
const CACHED_OPERATIONS = 1_024;

/**
 * The attributes a client's spans and measurements share: its system and server, and per
 * destination and operation one object, made once and shared (the SDK copies what it keeps).
 */
export class Naming {
  /** `messaging.system`. */
  readonly system: string;
  /** The most attributes a message may carry, or undefined for no limit. */
  readonly maxAttributes: number | undefined;
  /** The name of the delivery count attribute on this system. */
  readonly deliveryCountName: string;
  readonly #server: Attributes;
  readonly #operations = new BoundedCache<string, Attributes>(CACHED_OPERATIONS);

  /** The naming of a provider of type `providerType` that says `telemetry` of itself (or nothing). */
  constructor(providerType: string, telemetry: ProviderTelemetry | undefined) {
    this.system = telemetry?.system ?? providerType;
    this.maxAttributes = telemetry?.maxAttributes;
    this.deliveryCountName =
      this.system === "servicebus" ? ATTRIBUTES.serviceBusDeliveryCount : ATTRIBUTES.deliveryCount;
    const server: Attributes = {};
    if (telemetry?.serverAddress !== undefined) server[ATTRIBUTES.serverAddress] = telemetry.serverAddress;
    if (telemetry?.serverPort !== undefined) server[ATTRIBUTES.serverPort] = telemetry.serverPort;
    this.#server = server;
  }

  /** The low-cardinality attributes of one operation on `destination`: the span's first ones and every measurement's. */
  operation(type: OperationType, name: string, destination: string): Attributes {
    const key = `${type}\u0000${name}\u0000${destination}`;
    let attributes = this.#operations.get(key);
    if (attributes === undefined) {
      attributes = Object.freeze({
        [ATTRIBUTES.system]: this.system,
        [ATTRIBUTES.destination]: destination,
        [ATTRIBUTES.operationType]: type,
        [ATTRIBUTES.operationName]: name,
        ...this.#server,
      });
      this.#operations.set(key, attributes);
    }
    return attributes;
  }
}

/** `attributes` with `error.type` added: the code of a `QueueError`, else the thrown value's class name. */
export function withErrorType(attributes: Attributes, error: unknown): Attributes {
  return { ...attributes, [ATTRIBUTES.errorType]: errorType(error) };
}

/** The `error.type` of a thrown value: a `QueueError`'s code, else the error's class. */
export function errorType(error: unknown): string {
  if (error instanceof QueueError) return error.code;
  if (error instanceof Error) return error.constructor.name || error.name;
  return "_OTHER";
}

import { QueueError } from "../../core/errors.js";

/** Options every receiving store takes. */
export interface ReceivingStoreOptions {
  /** Put before every table name (default `qr_`): `qr_received_events`, `qr_parked_messages`, ... */
  readonly tablePrefix?: string;
}

/** The default table prefix. */
export const DEFAULT_TABLE_PREFIX = "qr_";

/** The table names of a store, from its prefix (checked, since it is written into SQL). */
export interface TableNames {
  readonly receivedEvents: string;
  readonly outbox: string;
  readonly deliveries: string;
  readonly parkedMessages: string;
  readonly schemaVersion: string;
}

/** The checked table names for `options.tablePrefix`. */
export function tableNames(options: ReceivingStoreOptions | undefined): TableNames {
  const prefix = options?.tablePrefix ?? DEFAULT_TABLE_PREFIX;
  if (typeof prefix !== "string" || !/^([A-Za-z_][A-Za-z0-9_]{0,39})?$/.test(prefix))
    throw new QueueError(
      "Configuration",
      `tablePrefix must be letters, digits and '_' (at most 40, not starting with a digit), not ${JSON.stringify(prefix)}`,
    );
  return {
    receivedEvents: `${prefix}received_events`,
    outbox: `${prefix}outbox`,
    deliveries: `${prefix}deliveries`,
    parkedMessages: `${prefix}parked_messages`,
    schemaVersion: `${prefix}receiving_schema`,
  };
}

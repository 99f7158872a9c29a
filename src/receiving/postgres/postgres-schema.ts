import type { TableNames } from "../stores/store-options.js";

/** The schema version this code writes; older ones are migrated forward, newer ones refused. */
export const POSTGRES_SCHEMA_VERSION = 1;

/** The statements that create version 1 of the receiving tables, in the connection's current schema. */
export function postgresSchema(t: TableNames): string {
  return `
    CREATE TABLE IF NOT EXISTS ${t.receivedEvents} (
      queue text NOT NULL,
      id text NOT NULL,
      recorded_at bigint NOT NULL,
      PRIMARY KEY (queue, id)
    );
    CREATE INDEX IF NOT EXISTS ${t.receivedEvents}_recorded_at ON ${t.receivedEvents} (recorded_at);

    CREATE TABLE IF NOT EXISTS ${t.outbox} (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      queue text NOT NULL,
      event_id text NOT NULL,
      event text NOT NULL,
      payload jsonb NOT NULL,
      created_at bigint NOT NULL,
      remaining integer NOT NULL
    );

    CREATE TABLE IF NOT EXISTS ${t.deliveries} (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      outbox_id bigint NOT NULL,
      subscriber text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'failed', 'dismissed')),
      attempts integer NOT NULL DEFAULT 0,
      due_at bigint NOT NULL,
      claimed_until bigint NOT NULL DEFAULT 0,
      claim integer NOT NULL DEFAULT 0,
      attempted_at bigint,
      failed_at bigint,
      dismissed_at bigint,
      last_error text
    );
    CREATE INDEX IF NOT EXISTS ${t.deliveries}_due ON ${t.deliveries} (due_at, id) WHERE status = 'pending';
    CREATE INDEX IF NOT EXISTS ${t.deliveries}_failed ON ${t.deliveries} (failed_at) WHERE status = 'failed';
    CREATE INDEX IF NOT EXISTS ${t.deliveries}_dismissed ON ${t.deliveries} (dismissed_at) WHERE status = 'dismissed';

    CREATE TABLE IF NOT EXISTS ${t.parkedMessages} (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      queue text NOT NULL,
      body_hash text NOT NULL,
      body bytea NOT NULL,
      reason text NOT NULL,
      problems jsonb NOT NULL,
      event text,
      type_at text,
      status text NOT NULL CHECK (status IN ('failed', 'pending', 'dismissed')),
      failed_at bigint NOT NULL,
      retried_at bigint,
      dismissed_at bigint,
      occurrences integer NOT NULL DEFAULT 1,
      UNIQUE (queue, body_hash)
    );
    CREATE INDEX IF NOT EXISTS ${t.parkedMessages}_retried ON ${t.parkedMessages} (retried_at) WHERE status = 'pending';
    CREATE INDEX IF NOT EXISTS ${t.parkedMessages}_dismissed ON ${t.parkedMessages} (dismissed_at) WHERE status = 'dismissed';
  `;
}

import { createHash } from "node:crypto";
import type { PgQuery } from "../../postgres/pg-pool.js";
import type { DeliverySettlement, EventToKeep, MessageToPark } from "../stores/receiving-store.js";
import type { TableNames } from "../stores/store-options.js";

/** The store's SQL, and how each batch statement's arrays are built. */
export interface PostgresStatements {
  /** Records every id not yet recorded and writes outbox rows and deliveries for them, in one statement. */
  readonly keep: PgQuery;
  keepValues(events: readonly EventToKeep[], now: number): unknown[];
  readonly park: PgQuery;
  parkValues(messages: readonly MessageToPark[], now: number): unknown[];
  readonly deleteParked: PgQuery;
  readonly retried: PgQuery;
  readonly claim: PgQuery;
  readonly lockOutbox: PgQuery;
  readonly dropDeliveries: PgQuery;
  readonly reschedule: PgQuery;
  rescheduleValues(settlements: readonly DeliverySettlement[], now: number): unknown[];
  readonly forgetIds: PgQuery;
  readonly forgetParked: PgQuery;
  readonly dismissedDeliveries: PgQuery;
  readonly failedParked: PgQuery;
  readonly failedDeliveries: PgQuery;
  readonly retryParked: PgQuery;
  readonly retryDelivery: PgQuery;
  readonly dismissParked: PgQuery;
  readonly dismissDelivery: PgQuery;
}

/**
 * The statements on the tables `t` names; `prepared` names each (after its text), so that a
 * connection parses and plans it once instead of at every call.
 */
export function postgresStatements(t: TableNames, prepared: boolean): PostgresStatements {
  const q = (text: string): PgQuery =>
    prepared
      ? { name: `queue_runtime_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`, text }
      : { text };
  return {
    // Rows go in sorted by key, so that two processes inserting the same ids take their locks in
    // the same order and never deadlock; ON CONFLICT makes the loser of a race see a repeat.
    keep: q(`
      WITH input AS (
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS i(queue, id, event, payload)
      ),
      fanout AS (SELECT * FROM unnest($5::text[], $6::text[]) AS f(event, subscriber)),
      recorded AS (
        INSERT INTO ${t.receivedEvents} (queue, id, recorded_at)
        SELECT queue, id, $7 FROM input ORDER BY queue, id
        ON CONFLICT DO NOTHING RETURNING queue, id
      ),
      outbox AS (
        INSERT INTO ${t.outbox} (queue, event_id, event, payload, created_at, remaining)
        SELECT i.queue, i.id, i.event, i.payload::jsonb, $7, (SELECT count(*) FROM fanout f WHERE f.event = i.event)
        FROM input i JOIN recorded r ON r.queue = i.queue AND r.id = i.id
        WHERE EXISTS (SELECT 1 FROM fanout f WHERE f.event = i.event)
        RETURNING id, event
      ),
      deliveries AS (
        INSERT INTO ${t.deliveries} (outbox_id, subscriber, status, due_at)
        SELECT o.id, f.subscriber, 'pending', $7 FROM outbox o JOIN fanout f ON f.event = o.event
      )
      SELECT queue, id FROM recorded`),
    keepValues(events, now) {
      const fanout = new Map<string, readonly string[]>();
      for (const event of events) fanout.set(event.event, event.subscribers);
      const pairs = [...fanout].flatMap(([event, subscribers]) =>
        subscribers.map((s) => [event, s] as const),
      );
      return [
        events.map((e) => e.queue),
        events.map((e) => e.id),
        events.map((e) => e.event),
        events.map((e) => e.payload),
        pairs.map(([event]) => event),
        pairs.map(([, subscriber]) => subscriber),
        now,
      ];
    },
    park: q(`
      INSERT INTO ${t.parkedMessages} (queue, body_hash, body, reason, problems, event, type_at, status, failed_at)
      SELECT queue, body_hash, body, reason, problems::jsonb, event, type_at, 'failed', $8
      FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::text[], $6::text[], $7::text[])
        AS p(queue, body_hash, body, reason, problems, event, type_at)
      ORDER BY queue, body_hash
      ON CONFLICT (queue, body_hash) DO UPDATE SET
        reason = excluded.reason, problems = excluded.problems, event = excluded.event, type_at = excluded.type_at,
        failed_at = CASE WHEN ${t.parkedMessages}.status = 'failed' THEN ${t.parkedMessages}.failed_at ELSE excluded.failed_at END,
        status = 'failed', retried_at = NULL, dismissed_at = NULL,
        occurrences = ${t.parkedMessages}.occurrences + 1`),
    parkValues(messages, now) {
      return [
        messages.map((m) => m.queue),
        messages.map((m) => m.bodyHash),
        messages.map((m) => Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength)),
        messages.map((m) => m.reason),
        messages.map((m) => JSON.stringify(m.problems)),
        messages.map((m) => m.event ?? null),
        messages.map((m) => m.typeAt ?? null),
        now,
      ];
    },
    deleteParked: q(`DELETE FROM ${t.parkedMessages} WHERE id = ANY($1::bigint[])`),
    retried: q(`
      SELECT id, queue, body FROM ${t.parkedMessages}
      WHERE status = 'pending' AND queue = ANY($1::text[]) ORDER BY retried_at, id LIMIT $2`),
    claim: q(`
      UPDATE ${t.deliveries} d
      SET attempts = d.attempts + 1, claim = d.claim + 1, claimed_until = $3, attempted_at = $1
      FROM (
        SELECT id FROM ${t.deliveries}
        WHERE status = 'pending' AND due_at <= $1 AND claimed_until <= $1
          AND (attempted_at IS NULL OR attempted_at < $4) AND subscriber = ANY($5::text[])
        ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
      ) due, ${t.outbox} o
      WHERE d.id = due.id AND o.id = d.outbox_id
      RETURNING d.id, d.subscriber, d.attempts, d.claim, o.queue, o.event_id, o.event,
        o.payload::text AS payload`),
    lockOutbox: q(`
      SELECT o.id FROM ${t.outbox} o
      WHERE o.id IN (SELECT outbox_id FROM ${t.deliveries} WHERE id = ANY($1::bigint[]))
      ORDER BY o.id FOR UPDATE`),
    // A delivery claimed again since (its claim moved on) is not this settlement's to delete. Its
    // outbox row, locked by lockOutbox, goes with its last delivery; the others count one less.
    dropDeliveries: q(`
      WITH gone AS (
        DELETE FROM ${t.deliveries} d USING unnest($1::bigint[], $2::integer[]) AS s(id, claim)
        WHERE d.id = s.id AND d.claim = s.claim RETURNING d.outbox_id
      ),
      counts AS (SELECT outbox_id, count(*)::integer AS n FROM gone GROUP BY outbox_id),
      emptied AS (
        DELETE FROM ${t.outbox} o USING counts WHERE o.id = counts.outbox_id AND o.remaining <= counts.n
      )
      UPDATE ${t.outbox} o SET remaining = o.remaining - counts.n FROM counts
      WHERE o.id = counts.outbox_id AND o.remaining > counts.n`),
    // A released delivery keeps its due time and gets back the attempt its claim counted.
    reschedule: q(`
      UPDATE ${t.deliveries} d
      SET status = s.status, due_at = COALESCE(s.due_at, d.due_at), claimed_until = 0,
          last_error = COALESCE(s.error, d.last_error), attempts = d.attempts - s.released,
          failed_at = CASE WHEN s.status = 'failed' THEN $7 ELSE d.failed_at END
      FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::bigint[], $5::text[], $6::integer[])
        AS s(id, claim, status, due_at, error, released)
      WHERE d.id = s.id AND d.claim = s.claim AND d.status = 'pending'`),
    rescheduleValues(settlements, now) {
      const later = settlements.filter((s) => s.outcome !== "done");
      return [
        later.map((s) => s.deliveryId),
        later.map((s) => s.claim),
        later.map((s) => (s.outcome === "failed" ? "failed" : "pending")),
        later.map((s) => ("dueAt" in s ? s.dueAt : null)),
        later.map((s) => ("error" in s ? s.error : null)),
        later.map((s) => (s.outcome === "released" ? 1 : 0)),
        now,
      ];
    },
    forgetIds: q(`DELETE FROM ${t.receivedEvents} WHERE recorded_at < $1`),
    forgetParked: q(`DELETE FROM ${t.parkedMessages} WHERE status = 'dismissed' AND dismissed_at < $1`),
    dismissedDeliveries: q(
      `SELECT id, claim FROM ${t.deliveries} WHERE status = 'dismissed' AND dismissed_at < $1`,
    ),
    failedParked: q(`
      SELECT id, queue, reason, problems::text AS problems, event, type_at, body, failed_at FROM ${t.parkedMessages}
      WHERE status = 'failed' ORDER BY failed_at, id`),
    failedDeliveries: q(`
      SELECT d.id, d.subscriber, o.event, d.last_error, d.attempts, d.failed_at
      FROM ${t.deliveries} d JOIN ${t.outbox} o ON o.id = d.outbox_id
      WHERE d.status = 'failed' ORDER BY d.failed_at, d.id`),
    retryParked: q(
      `UPDATE ${t.parkedMessages} SET status = 'pending', retried_at = $1 WHERE id = $2 AND status = 'failed'`,
    ),
    retryDelivery: q(`
      UPDATE ${t.deliveries} SET status = 'pending', due_at = $1, attempts = 0, attempted_at = NULL,
        claimed_until = 0, failed_at = NULL WHERE id = $2 AND status = 'failed'`),
    dismissParked: q(
      `UPDATE ${t.parkedMessages} SET status = 'dismissed', dismissed_at = $1 WHERE id = $2 AND status = 'failed'`,
    ),
    dismissDelivery: q(
      `UPDATE ${t.deliveries} SET status = 'dismissed', dismissed_at = $1 WHERE id = $2 AND status = 'failed'`,
    ),
  };
}

import type BetterSqlite3 from "better-sqlite3";
import {
  byFailure,
  deliveryItem,
  type FailedDeliveryRow,
  type ParkedRow,
  parkedItem,
} from "../stores/failed-rows.js";
import type {
  ClaimedDelivery,
  Commit,
  DeliveryClaim,
  DeliverySettlement,
  FailedItem,
  KeepOutcome,
} from "../stores/receiving-store.js";
import type { TableNames } from "../stores/store-options.js";

type Transaction<Args extends unknown[], Result> = BetterSqlite3.Transaction<(...args: Args) => Result>;

/** The receiving store's statements and transactions on one connection. */
export interface ReceivingStatements {
  readonly commit: Transaction<[Commit, number], KeepOutcome[]>;
  readonly retried: BetterSqlite3.Statement;
  readonly claim: Transaction<[DeliveryClaim], ClaimedDelivery[]>;
  readonly settle: Transaction<[readonly DeliverySettlement[], number], void>;
  readonly expire: Transaction<[number], void>;
  readonly failed: Transaction<[], FailedItem[]>;
  readonly retryParked: BetterSqlite3.Statement;
  readonly retryDelivery: BetterSqlite3.Statement;
  readonly dismissParked: BetterSqlite3.Statement;
  readonly dismissDelivery: BetterSqlite3.Statement;
}

interface ClaimRow {
  id: number;
  subscriber: string;
  attempts: number;
  claim: number;
  queue: string;
  event_id: string;
  event: string;
  payload: string;
}

/** Prepares every statement once; transactions run with `.immediate` so that a writer holds the lock from its start. */
export function prepareReceivingStatements(db: BetterSqlite3.Database, t: TableNames): ReceivingStatements {
  const record = db.prepare(
    `INSERT OR IGNORE INTO ${t.receivedEvents} (queue, id, recorded_at) VALUES (?, ?, ?)`,
  );
  const writeOutbox = db.prepare(
    `INSERT INTO ${t.outbox} (queue, event_id, event, payload, created_at, remaining) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const writeDelivery = db.prepare(
    `INSERT INTO ${t.deliveries} (outbox_id, subscriber, status, due_at) VALUES (?, ?, 'pending', ?)`,
  );
  const deleteParked = db.prepare(`DELETE FROM ${t.parkedMessages} WHERE id = ?`);
  const park = db.prepare(
    `INSERT INTO ${t.parkedMessages} (queue, body_hash, body, reason, problems, event, type_at, status, failed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'failed', ?)
     ON CONFLICT (queue, body_hash) DO UPDATE SET
       reason = excluded.reason, problems = excluded.problems, event = excluded.event, type_at = excluded.type_at,
       failed_at = CASE WHEN status = 'failed' THEN failed_at ELSE excluded.failed_at END,
       status = 'failed', retried_at = NULL, dismissed_at = NULL, occurrences = occurrences + 1`,
  );
  const due = db.prepare(
    `SELECT d.id, d.subscriber, d.attempts, d.claim, o.queue, o.event_id, o.event, o.payload
     FROM ${t.deliveries} d JOIN ${t.outbox} o ON o.id = d.outbox_id
     WHERE d.status = 'pending' AND d.due_at <= ? AND d.claimed_until <= ?
       AND (d.attempted_at IS NULL OR d.attempted_at < ?)
       AND d.subscriber IN (SELECT value FROM json_each(?))
     ORDER BY d.due_at, d.id LIMIT ?`,
  );
  const markClaimed = db.prepare(
    `UPDATE ${t.deliveries} SET attempts = attempts + 1, claim = claim + 1, claimed_until = ?, attempted_at = ?
     WHERE id = ?`,
  );
  const deleteDelivery = db.prepare(
    `DELETE FROM ${t.deliveries} WHERE id = ? AND claim = ? RETURNING outbox_id`,
  );
  const deleteLastOfOutbox = db.prepare(`DELETE FROM ${t.outbox} WHERE id = ? AND remaining <= 1`);
  const releaseOutbox = db.prepare(`UPDATE ${t.outbox} SET remaining = remaining - 1 WHERE id = ?`);
  const releaseClaim = db.prepare(
    `UPDATE ${t.deliveries} SET claimed_until = 0, attempts = attempts - 1
     WHERE id = ? AND claim = ? AND status = 'pending'`,
  );
  const retryLater = db.prepare(
    `UPDATE ${t.deliveries} SET due_at = ?, claimed_until = 0, last_error = ?
     WHERE id = ? AND claim = ? AND status = 'pending'`,
  );
  const markFailed = db.prepare(
    `UPDATE ${t.deliveries} SET status = 'failed', failed_at = ?, claimed_until = 0, last_error = ?
     WHERE id = ? AND claim = ? AND status = 'pending'`,
  );
  const forgetIds = db.prepare(`DELETE FROM ${t.receivedEvents} WHERE recorded_at < ?`);
  const forgetParked = db.prepare(
    `DELETE FROM ${t.parkedMessages} WHERE status = 'dismissed' AND dismissed_at < ?`,
  );
  const dismissedDeliveries = db.prepare(
    `SELECT id, claim FROM ${t.deliveries} WHERE status = 'dismissed' AND dismissed_at < ?`,
  );
  const failedParked = db.prepare(
    `SELECT id, queue, reason, problems, event, type_at, body, failed_at FROM ${t.parkedMessages}
     WHERE status = 'failed' ORDER BY failed_at, id`,
  );
  const failedDeliveries = db.prepare(
    `SELECT d.id, d.subscriber, o.event, d.last_error, d.attempts, d.failed_at
     FROM ${t.deliveries} d JOIN ${t.outbox} o ON o.id = d.outbox_id
     WHERE d.status = 'failed' ORDER BY d.failed_at, d.id`,
  );

  /** Deletes a delivery unless claimed again since, and its outbox row once no delivery of it is left. */
  const drop = (deliveryId: number, claim: number) => {
    const gone = deleteDelivery.get(deliveryId, claim) as { outbox_id: number } | undefined;
    if (gone === undefined) return;
    if (deleteLastOfOutbox.run(gone.outbox_id).changes === 0) releaseOutbox.run(gone.outbox_id);
  };

  return {
    commit: db.transaction((commit: Commit, now: number) => {
      const outcomes: KeepOutcome[] = [];
      for (const event of commit.keep) {
        if (event.parkedId !== undefined) deleteParked.run(event.parkedId);
        if (record.run(event.queue, event.id, now).changes === 0) {
          outcomes.push("repeat");
          continue;
        }
        outcomes.push("kept");
        if (event.subscribers.length === 0) continue;
        const outboxId = writeOutbox.run(
          event.queue,
          event.id,
          event.event,
          event.payload,
          now,
          event.subscribers.length,
        ).lastInsertRowid;
        for (const subscriber of event.subscribers) writeDelivery.run(outboxId, subscriber, now);
      }
      for (const message of commit.park)
        park.run(
          message.queue,
          message.bodyHash,
          Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength),
          message.reason,
          JSON.stringify(message.problems),
          message.event ?? null,
          message.typeAt ?? null,
          now,
        );
      return outcomes;
    }),
    retried: db.prepare(
      `SELECT id, queue, body FROM ${t.parkedMessages}
       WHERE status = 'pending' AND queue IN (SELECT value FROM json_each(?))
       ORDER BY retried_at, id LIMIT ?`,
    ),
    claim: db.transaction((claim: DeliveryClaim) => {
      const rows = due.all(
        claim.now,
        claim.now,
        claim.since,
        JSON.stringify(claim.subscribers),
        claim.limit,
      ) as ClaimRow[];
      return rows.map((row): ClaimedDelivery => {
        markClaimed.run(claim.claimedUntil, claim.now, row.id);
        return {
          deliveryId: row.id,
          subscriber: row.subscriber,
          queue: row.queue,
          eventId: row.event_id,
          event: row.event,
          payload: row.payload,
          attempt: row.attempts + 1,
          claim: row.claim + 1,
        };
      });
    }),
    settle: db.transaction((settlements: readonly DeliverySettlement[], now: number) => {
      for (const settlement of settlements) {
        if (settlement.outcome === "done") drop(settlement.deliveryId, settlement.claim);
        else if (settlement.outcome === "released") releaseClaim.run(settlement.deliveryId, settlement.claim);
        else if (settlement.outcome === "retry")
          retryLater.run(settlement.dueAt, settlement.error, settlement.deliveryId, settlement.claim);
        else markFailed.run(now, settlement.error, settlement.deliveryId, settlement.claim);
      }
    }),
    expire: db.transaction((before: number) => {
      forgetIds.run(before);
      forgetParked.run(before);
      for (const row of dismissedDeliveries.all(before) as { id: number; claim: number }[])
        drop(row.id, row.claim);
    }),
    failed: db.transaction(() =>
      byFailure(
        (failedParked.all() as ParkedRow[]).map(parkedItem),
        (failedDeliveries.all() as FailedDeliveryRow[]).map(deliveryItem),
      ),
    ),
    retryParked: db.prepare(
      `UPDATE ${t.parkedMessages} SET status = 'pending', retried_at = ? WHERE id = ? AND status = 'failed'`,
    ),
    retryDelivery: db.prepare(
      `UPDATE ${t.deliveries} SET status = 'pending', due_at = ?, attempts = 0, attempted_at = NULL,
         claimed_until = 0, failed_at = NULL WHERE id = ? AND status = 'failed'`,
    ),
    dismissParked: db.prepare(
      `UPDATE ${t.parkedMessages} SET status = 'dismissed', dismissed_at = ? WHERE id = ? AND status = 'failed'`,
    ),
    dismissDelivery: db.prepare(
      `UPDATE ${t.deliveries} SET status = 'dismissed', dismissed_at = ? WHERE id = ? AND status = 'failed'`,
    ),
  };
}

import type BetterSqlite3 from "better-sqlite3";
import { LOCK_COLUMNS, MESSAGE_COLUMNS } from "./message-rows.js";

/** A prepared statement of the store's connection. */
export interface Statement extends BetterSqlite3.Statement<unknown[], unknown> {}

// The sequence of a group's oldest ready message, read from the group index.
const GROUP_HEAD = "(SELECT min(seq) FROM messages WHERE queue = ? AND session_id = ? AND state = 0)";

/**
 * A statement whose LIMIT is written into its text, one prepared statement per limit: a bound
 * LIMIT makes SQLite (built with STAT4) plan the statement again on every run, 20 µs each time.
 */
function limited(db: BetterSqlite3.Database, text: string): (limit: number) => Statement {
  const byLimit = new Map<number, Statement>();
  return (limit) => {
    let statement = byLimit.get(limit);
    if (statement === undefined) {
      if (!Number.isSafeInteger(limit) || limit < 0)
        throw new RangeError(`a LIMIT must be a whole number, not ${limit}`);
      statement = db.prepare(`${text} LIMIT ${limit}`).raw();
      byLimit.set(limit, statement);
    }
    return statement;
  };
}

/** Every statement the SQLite store runs, prepared once per connection. Queues are named by their id. */
export function prepareStatements(db: BetterSqlite3.Database) {
  const sql = (text: string): Statement => db.prepare(text);
  return {
    begin: sql("BEGIN IMMEDIATE"),
    commit: sql("COMMIT"),
    rollback: sql("ROLLBACK"),
    dataVersion: sql("PRAGMA data_version").pluck(),

    getQueue: sql("SELECT id, settings FROM queues WHERE name = ?").raw(),
    listQueues: sql("SELECT name FROM queues ORDER BY name").pluck(),
    insertQueue: sql("INSERT INTO queues (name, settings) VALUES (?, ?)"),
    updateQueue: sql("UPDATE queues SET settings = ? WHERE id = ?"),
    deleteQueue: sql("DELETE FROM queues WHERE id = ?"),

    getTopic: sql("SELECT settings FROM topics WHERE name = ?").pluck(),
    listTopics: sql("SELECT settings FROM topics ORDER BY name").pluck(),
    putTopic: sql(
      "INSERT INTO topics (name, settings) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET settings = excluded.settings",
    ),
    deleteTopic: sql("DELETE FROM topics WHERE name = ?"),
    deleteTopicSubscriptions: sql("DELETE FROM subscriptions WHERE topic = ?"),
    listSubscriptions: sql("SELECT settings FROM subscriptions WHERE topic = ? ORDER BY name").pluck(),
    putSubscription: sql(`INSERT INTO subscriptions (topic, name, settings) VALUES (?, ?, ?)
      ON CONFLICT (topic, name) DO UPDATE SET settings = excluded.settings`),
    deleteSubscription: sql("DELETE FROM subscriptions WHERE topic = ? AND name = ?"),

    // The next sequence is one past the largest stored, and never below the clock's floor, so numbers keep
    // rising after a queue drains without a counter row rewritten (one more page) on every send.
    insertMessage:
      sql(`INSERT INTO messages (seq, queue, session_id, expires_at, state, visible_at, lock_token,
        delivery_count, first_delivered_at, delivered_at, payload)
      VALUES (max(coalesce((SELECT max(seq) FROM messages), 0) + 1, ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    getMessage: sql(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE seq = ? AND queue = ?`).raw(),
    getLock: sql(`SELECT ${LOCK_COLUMNS} FROM messages WHERE seq = ? AND queue = ?`).raw(),
    updateMessage: sql(`UPDATE messages SET state = ?, visible_at = ?, lock_token = ?, delivery_count = ?,
      first_delivered_at = ?, delivered_at = ? WHERE seq = ? AND queue = ?`),
    getPayload: sql("SELECT payload FROM messages WHERE seq = ? AND queue = ?").pluck(),
    updatePayload: sql("UPDATE messages SET payload = ? WHERE seq = ? AND queue = ?"),
    deleteMessage: sql("DELETE FROM messages WHERE seq = ? AND queue = ? RETURNING session_id").pluck(),
    deleteLocked:
      sql(`DELETE FROM messages WHERE seq = ? AND queue = ? AND lock_token = ? AND state = 2 AND visible_at > ?
      RETURNING session_id`).pluck(),
    deleteLockedAnyTime: sql(
      "DELETE FROM messages WHERE seq = ? AND queue = ? AND lock_token = ? RETURNING session_id",
    ).pluck(),
    purgeReady: sql("DELETE FROM messages WHERE queue = ? AND state = 0"),
    purgeWaiting: sql("DELETE FROM messages WHERE queue = ? AND state > 0"),

    peekMessages: limited(
      db,
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE seq >= ? AND queue = ? ORDER BY seq`,
    ),
    readyMessages: limited(
      db,
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE queue = ? AND state = 0 ORDER BY seq`,
    ),
    readyInGroup: limited(
      db,
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE queue = ? AND session_id = ? AND state = 0 ORDER BY seq`,
    ),
    lockedInGroup: sql(
      `SELECT ${LOCK_COLUMNS} FROM messages WHERE queue = ? AND session_id = ? AND state = 2 ORDER BY seq`,
    ).raw(),
    dueMessages: limited(
      db,
      `SELECT ${LOCK_COLUMNS} FROM messages WHERE queue = ? AND state > 0 AND visible_at <= ? ORDER BY visible_at`,
    ),
    expiredMessages: limited(
      db,
      `SELECT ${LOCK_COLUMNS} FROM messages
      WHERE queue = ? AND expires_at IS NOT NULL AND expires_at <= ? AND state < 2 ORDER BY expires_at`,
    ),
    nextDue: sql("SELECT min(visible_at) FROM messages WHERE queue = ? AND state > 0").pluck(),
    nextUnlock: sql(
      "SELECT min(locked_until) FROM groups WHERE queue = ? AND locked_until > ? AND head_seq IS NOT NULL",
    ).pluck(),
    countReady: sql("SELECT count(*) FROM messages WHERE queue = ? AND state = 0").pluck(),
    countWaiting: sql(
      "SELECT state, count(*) FROM messages WHERE queue = ? AND state > 0 GROUP BY state",
    ).raw(),

    getGroup: sql(
      "SELECT lock_kind, lock_token, locked_until, state FROM groups WHERE queue = ? AND session_id = ?",
    ).raw(),
    putGroup:
      sql(`INSERT INTO groups (queue, session_id, lock_kind, lock_token, locked_until, state, head_seq)
      VALUES (?, ?, ?, ?, ?, ?, ${GROUP_HEAD})
      ON CONFLICT (queue, session_id) DO UPDATE SET lock_kind = excluded.lock_kind, lock_token = excluded.lock_token,
        locked_until = excluded.locked_until, state = excluded.state`),
    trackGroup: sql(`INSERT INTO groups (queue, session_id, head_seq) VALUES (?, ?, ${GROUP_HEAD})
      ON CONFLICT (queue, session_id) DO UPDATE SET head_seq = excluded.head_seq`),
    releaseGroup: sql(`UPDATE groups SET lock_kind = NULL, lock_token = NULL, locked_until = 0, state = NULL
      WHERE queue = ? AND session_id = ?`),
    dropIdleGroup:
      sql(`DELETE FROM groups WHERE queue = @queue AND session_id = @session AND lock_kind IS NULL
      AND state IS NULL AND NOT EXISTS (SELECT 1 FROM messages WHERE queue = @queue AND session_id = @session)`),
    // The head index walks groups oldest-first and skips the few locked ones; the lock index would sort them all.
    availableGroups: limited(
      db,
      `SELECT session_id FROM groups INDEXED BY groups_head
      WHERE queue = ? AND head_seq IS NOT NULL AND locked_until <= ? ORDER BY head_seq`,
    ),
    sessionLockedGroups: sql(
      "SELECT session_id FROM groups WHERE queue = ? AND locked_until > ? AND lock_kind = 'session'",
    ).pluck(),
    clearHeads: sql("UPDATE groups SET head_seq = NULL WHERE queue = ? AND head_seq IS NOT NULL"),
    deleteGroups: sql("DELETE FROM groups WHERE queue = ?"),

    findDuplicate: sql(`SELECT message_id, seq, expires_at FROM duplicates
      WHERE queue = ? AND deduplication_id = ? AND expires_at > ?`).raw(),
    putDuplicate:
      sql(`INSERT OR REPLACE INTO duplicates (queue, deduplication_id, message_id, seq, expires_at)
      VALUES (?, ?, ?, ?, ?)`),
    pruneDuplicates: sql("DELETE FROM duplicates WHERE expires_at <= ?"),
    deleteDuplicates: sql("DELETE FROM duplicates WHERE queue = ?"),
  };
}

/** The prepared statements of one connection. */
export type Statements = ReturnType<typeof prepareStatements>;

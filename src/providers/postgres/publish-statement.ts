/**
 * A publish in one statement: the topic's row is updated (its `published` count) only while its
 * revision is still the one the copies were planned from, and the copies are inserted only when
 * it was, so a publish planned from subscriptions another process has changed stores nothing and
 * answers `published` 0 (the caller reads them again and retries). The row's lock orders the
 * publish with every change of subscriptions and rules, which lock it first: a change made before
 * the publish took the lock is seen (READ COMMITTED re-checks the locked row's newest version),
 * one made after waits for the publish's copies and sees them. All copies are one statement: all
 * or none.
 *
 * Parameters: topic id, expected revision, messages published, now; per message that has a copy
 * (ids, sessions, bodies, attributes, correlation ids, content types); per copy (queue id, its
 * message's index in those arrays from 1, expiry, state, visible-at, whether the queue is FIFO);
 * the channel, and the names of the queues copied to (notified when it commits).
 */
export function publishStatement(schema: string): string {
  const s = schema;
  return `WITH topic AS (
    UPDATE ${s}.topics SET published = published + $3::bigint WHERE id = $1 AND revision = $2::bigint RETURNING id),
  copies AS (
    SELECT c.queue_id, c.expires, c.state, c.visible, c.fifo, c.k, m.id, m.session, m.body, m.attributes,
      m.correlation, m.content_type
    FROM unnest($11::int[], $12::int[], $13::bigint[], $14::smallint[], $15::bigint[], $16::boolean[])
        WITH ORDINALITY AS c (queue_id, message, expires, state, visible, fifo, k)
      JOIN unnest($5::text[], $6::text[], $7::bytea[], $8::jsonb[], $9::text[], $10::text[])
        WITH ORDINALITY AS m (id, session, body, attributes, correlation, content_type, n) ON m.n = c.message
    WHERE EXISTS (SELECT 1 FROM topic)),
  grouped AS (
    INSERT INTO ${s}.groups (queue_id, session_id)
    SELECT DISTINCT queue_id, session FROM copies WHERE fifo ON CONFLICT DO NOTHING),
  sent AS (
    INSERT INTO ${s}.messages (queue_id, message_id, session_id, body, attributes, correlation_id,
      content_type, enqueued_at, expires_at, state, visible_at)
    SELECT queue_id, id, session, body, attributes, correlation, content_type, $4::bigint, expires, state, visible
    FROM copies ORDER BY k
    RETURNING 1)
  SELECT (SELECT count(*) FROM topic)::int AS published, (SELECT count(*) FROM sent)::int AS copies,
    (SELECT count(*) FROM (SELECT pg_notify($17, q) FROM unnest($18::text[]) AS q
      WHERE EXISTS (SELECT 1 FROM topic)) AS notified)::int AS notified`;
}

/**
 * The same check of the topic's revision as the first step of a transaction that makes its
 * copies through the `send` function (copies to queues with deduplication): answers a row when
 * the revision held. Parameters: topic id, expected revision, messages published.
 */
export function publishCheckStatement(schema: string): string {
  return `UPDATE ${schema}.topics SET published = published + $3::bigint WHERE id = $1 AND revision = $2::bigint
    RETURNING id`;
}

import { QueueError } from "../../core/errors.js";
import type { PgPool } from "../../postgres/pg-pool.js";
import { pgFailure } from "./pg-failures.js";
import { VERSION_3 } from "./topic-schema.js";

/** The schema version this code writes; older schemas are migrated on first use, newer ones refused. */
export const SCHEMA_VERSION = 3;

/** The LISTEN/NOTIFY channel of a schema's queues: a send notifies it with the queue's name. */
export function channelOf(schema: string): string {
  return `qr_${schema}`.slice(0, 63);
}

/** A schema name as PostgreSQL takes it unquoted: what `?schema=` may say. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Checks a schema name (letters, digits and `_`, lower case, at most 63); `Configuration` otherwise. */
export function checkSchemaName(schema: string): string {
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema))
    throw new QueueError(
      "Configuration",
      `postgres schema ${JSON.stringify(schema)} must be lower-case letters, digits and '_', starting with a letter or '_', at most 63 characters`,
    );
  return schema;
}

/**
 * Releases the lock of a message (p_token must hold it): ready at once (receives are notified) or
 * after p_delay; one whose deliveries are used up is dead-lettered at once, delay or not (it would
 * only wait to be dead-lettered). Answers whether the lock held.
 */
const abandonFunction = (s: string) => `
CREATE OR REPLACE FUNCTION ${s}.abandon(p_seq bigint, p_queue int, p_token uuid, p_now bigint, p_delay bigint,
  p_max_deliveries int, p_dlq int, p_source text, p_channel text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_count int;
BEGIN
  SELECT delivery_count INTO v_count FROM ${s}.messages
  WHERE seq = p_seq AND queue_id = p_queue AND lock_token = p_token AND state = 2 AND visible_at > p_now
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF p_dlq IS NOT NULL AND p_max_deliveries IS NOT NULL AND v_count >= p_max_deliveries THEN
    PERFORM ${s}.dead_letter(p_seq, p_dlq, p_source, 'MaxDeliveryCountExceeded', NULL, false, p_now);
    RETURN true;
  END IF;
  UPDATE ${s}.messages SET state = CASE WHEN p_delay > 0 THEN 1 ELSE 0 END, visible_at = p_now + p_delay
  WHERE seq = p_seq;
  IF p_delay = 0 THEN
    PERFORM pg_notify(p_channel, p_source);
  END IF;
  RETURN true;
END $$;
`;

/**
 * Moves up to 500 messages of a dead-letter queue back to p_target (or each to its source queue),
 * without their dead-letter attributes; resolves how many moved. It moves what a receive could take
 * now, as on every provider: not a message still delayed, nor one of a session someone holds or
 * reads; messages whose source queue is gone stay.
 */
const redriveFunction = (s: string) => `
CREATE OR REPLACE FUNCTION ${s}.redrive(p_dlq int, p_target text, p_now bigint)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_row record;
  v_moved int := 0;
BEGIN
  FOR v_row IN
    SELECT m.seq, m.attributes, t.id AS target FROM ${s}.messages m
    JOIN ${s}.queues t ON t.name = coalesce(p_target, m.attributes ->> 'DeadLetterSourceQueue')
    WHERE m.queue_id = p_dlq AND (m.state = 0 OR m.visible_at <= p_now) AND t.id <> p_dlq
      AND (m.session_id IS NULL OR NOT EXISTS (
        SELECT 1 FROM ${s}.groups g WHERE g.queue_id = p_dlq AND g.session_id = m.session_id
          AND g.locked_until > p_now))
      AND (m.session_id IS NULL OR NOT EXISTS (
        SELECT 1 FROM ${s}.messages l WHERE l.queue_id = p_dlq AND l.session_id = m.session_id
          AND l.state = 2 AND l.visible_at > p_now))
    ORDER BY m.seq LIMIT 500 FOR UPDATE OF m SKIP LOCKED
  LOOP
    PERFORM ${s}.transfer(v_row.seq, v_row.target,
      v_row.attributes - 'DeadLetterReason' - 'DeadLetterErrorDescription' - 'DeadLetterSourceQueue', p_now);
    v_moved := v_moved + 1;
  END LOOP;
  RETURN v_moved;
END $$;
`;

// Message states: 0 ready, 1 delayed (visible at visible_at), 2 locked (until visible_at). Every
// index serves one question: ready messages of a queue in order, delayed and locked ones coming
// due, messages whose time to live ends, and a session's messages in order.
const VERSION_1 = (s: string) => `
CREATE TABLE ${s}.queues (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  settings jsonb NOT NULL
);
CREATE TABLE ${s}.messages (
  seq bigserial PRIMARY KEY,
  queue_id int NOT NULL REFERENCES ${s}.queues (id) ON DELETE CASCADE,
  message_id text NOT NULL,
  session_id text,
  body bytea NOT NULL,
  attributes jsonb,
  correlation_id text,
  content_type text,
  enqueued_at bigint NOT NULL,
  expires_at bigint,
  state smallint NOT NULL,
  visible_at bigint NOT NULL,
  lock_token uuid,
  delivery_count int NOT NULL DEFAULT 0,
  first_delivered_at bigint,
  delivered_at bigint
);
CREATE INDEX messages_ready ON ${s}.messages (queue_id, seq) WHERE state = 0;
CREATE INDEX messages_due ON ${s}.messages (queue_id, visible_at) WHERE state > 0;
CREATE INDEX messages_expiry ON ${s}.messages (queue_id, expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX messages_group ON ${s}.messages (queue_id, session_id, seq) WHERE session_id IS NOT NULL;
CREATE TABLE ${s}.groups (
  queue_id int NOT NULL REFERENCES ${s}.queues (id) ON DELETE CASCADE,
  session_id text NOT NULL,
  lock_kind text,
  lock_token uuid,
  locked_until bigint NOT NULL DEFAULT 0,
  state bytea,
  PRIMARY KEY (queue_id, session_id)
);
CREATE TABLE ${s}.duplicates (
  queue_id int NOT NULL REFERENCES ${s}.queues (id) ON DELETE CASCADE,
  deduplication_id text NOT NULL,
  message_id text NOT NULL,
  seq bigint NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (queue_id, deduplication_id)
);
CREATE INDEX duplicates_expiry ON ${s}.duplicates (queue_id, expires_at);

-- Moves a message to another queue as a fresh delivery: same id, body and session, the given
-- attributes, a new sequence number, no lock, no time to live, its delivery count starting over.
CREATE FUNCTION ${s}.transfer(p_seq bigint, p_to int, p_attributes jsonb, p_now bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_fifo boolean;
  v_session text;
  v_source text;
BEGIN
  SELECT (settings ->> 'fifo')::boolean INTO v_fifo FROM ${s}.queues WHERE id = p_to;
  SELECT q.name INTO v_source FROM ${s}.messages m JOIN ${s}.queues q ON q.id = m.queue_id WHERE m.seq = p_seq;
  -- A FIFO queue needs a session: a message from a standard queue joins one named after its source.
  WITH moved AS (DELETE FROM ${s}.messages WHERE seq = p_seq RETURNING *)
  INSERT INTO ${s}.messages (queue_id, message_id, session_id, body, attributes, correlation_id,
    content_type, enqueued_at, expires_at, state, visible_at)
  SELECT p_to, message_id, CASE WHEN v_fifo THEN coalesce(session_id, v_source) ELSE session_id END,
    body, p_attributes, correlation_id, content_type, enqueued_at, NULL, 0, p_now FROM moved
  RETURNING session_id INTO v_session;
  IF v_fifo THEN
    INSERT INTO ${s}.groups (queue_id, session_id) VALUES (p_to, v_session) ON CONFLICT DO NOTHING;
  END IF;
END $$;

-- Dead-letters a message into p_dlq with a reason, or (p_dlq null) deletes it when p_drop,
-- else leaves it. Resolves whether it left the queue.
CREATE FUNCTION ${s}.dead_letter(p_seq bigint, p_dlq int, p_source text, p_reason text,
  p_description text, p_drop boolean, p_now bigint)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_attributes jsonb;
BEGIN
  IF p_dlq IS NULL THEN
    IF p_drop THEN
      DELETE FROM ${s}.messages WHERE seq = p_seq;
      RETURN true;
    END IF;
    RETURN false;
  END IF;
  SELECT coalesce(attributes, '{}'::jsonb) - 'DeadLetterErrorDescription'
    || jsonb_build_object('DeadLetterReason', p_reason, 'DeadLetterSourceQueue', p_source)
    || CASE WHEN p_description IS NULL THEN '{}'::jsonb
       ELSE jsonb_build_object('DeadLetterErrorDescription', p_description) END
    INTO v_attributes FROM ${s}.messages WHERE seq = p_seq;
  PERFORM ${s}.transfer(p_seq, p_dlq, v_attributes, p_now);
  RETURN true;
END $$;

-- Stores messages in order; each answers its sequence number and id. A deduplication id seen in
-- its window answers the original instead: the row of the id is claimed first, so of two sends
-- racing with one id exactly one stores a message.
CREATE FUNCTION ${s}.send(p_queue int, p_now bigint, p_window bigint, p_ids text[], p_sessions text[],
  p_bodies bytea[], p_attributes jsonb[], p_correlations text[], p_types text[], p_states smallint[],
  p_visible bigint[], p_expires bigint[], p_dedup text[], p_fifo boolean, p_channel text, p_name text)
RETURNS TABLE (o_seq bigint, o_message_id text) LANGUAGE plpgsql AS $$
DECLARE
  i int;
  v_claimed boolean;
BEGIN
  IF p_window > 0 THEN
    -- Deduplication ids past their window are forgotten a hundred at a time.
    DELETE FROM ${s}.duplicates WHERE (queue_id, deduplication_id) IN (
      SELECT queue_id, deduplication_id FROM ${s}.duplicates WHERE queue_id = p_queue AND expires_at <= p_now
      LIMIT 100 FOR UPDATE SKIP LOCKED);
  END IF;
  IF p_fifo THEN
    INSERT INTO ${s}.groups (queue_id, session_id)
    SELECT DISTINCT p_queue, session FROM unnest(p_sessions) AS session ON CONFLICT DO NOTHING;
  END IF;
  IF cardinality(array_remove(p_dedup, NULL)) = 0 THEN
    -- No deduplication ids: one statement for the batch, sequence numbers drawn in its order.
    RETURN QUERY
      INSERT INTO ${s}.messages (queue_id, message_id, session_id, body, attributes, correlation_id,
        content_type, enqueued_at, expires_at, state, visible_at)
      SELECT p_queue, id, session, body, attributes, correlation, content_type, p_now, expires, state, visible
      FROM unnest(p_ids, p_sessions, p_bodies, p_attributes, p_correlations, p_types, p_expires, p_states, p_visible)
        WITH ORDINALITY AS m (id, session, body, attributes, correlation, content_type, expires, state, visible, n)
      ORDER BY n
      RETURNING seq, message_id;
    PERFORM pg_notify(p_channel, p_name);
    RETURN;
  END IF;
  FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
    IF p_dedup[i] IS NOT NULL THEN
      v_claimed := NULL;
      INSERT INTO ${s}.duplicates AS d (queue_id, deduplication_id, message_id, seq, expires_at)
      VALUES (p_queue, p_dedup[i], p_ids[i], 0, p_now + p_window)
      ON CONFLICT (queue_id, deduplication_id) DO UPDATE
        SET message_id = EXCLUDED.message_id, seq = 0, expires_at = EXCLUDED.expires_at
        WHERE d.expires_at <= p_now
      RETURNING true INTO v_claimed;
      IF v_claimed IS NULL THEN
        SELECT d.seq, d.message_id INTO o_seq, o_message_id FROM ${s}.duplicates d
        WHERE d.queue_id = p_queue AND d.deduplication_id = p_dedup[i];
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;
    INSERT INTO ${s}.messages (queue_id, message_id, session_id, body, attributes, correlation_id,
      content_type, enqueued_at, expires_at, state, visible_at)
    VALUES (p_queue, p_ids[i], p_sessions[i], p_bodies[i], p_attributes[i], p_correlations[i],
      p_types[i], p_now, p_expires[i], p_states[i], p_visible[i])
    RETURNING seq INTO o_seq;
    IF p_dedup[i] IS NOT NULL THEN
      UPDATE ${s}.duplicates SET seq = o_seq WHERE queue_id = p_queue AND deduplication_id = p_dedup[i];
    END IF;
    o_message_id := p_ids[i];
    RETURN NEXT;
  END LOOP;
  -- Receives waiting in other processes wake when this commits.
  PERFORM pg_notify(p_channel, p_name);
END $$;

${redriveFunction(s)}
-- Delivers one ready message locked until p_until, unless its time to live ended (dead-lettered or
-- dropped) or its deliveries are used up (dead-lettered): then it answers NULL.
CREATE FUNCTION ${s}.deliver(p_seq bigint, p_now bigint, p_until bigint, p_max_deliveries int,
  p_dlq int, p_source text, p_dead_on_expiry boolean)
RETURNS ${s}.messages LANGUAGE plpgsql AS $$
DECLARE
  v_row ${s}.messages;
BEGIN
  SELECT * INTO v_row FROM ${s}.messages WHERE seq = p_seq;
  IF v_row.expires_at IS NOT NULL AND v_row.expires_at <= p_now THEN
    PERFORM ${s}.dead_letter(p_seq, CASE WHEN p_dead_on_expiry THEN p_dlq END, p_source, 'TTLExpired', NULL, true, p_now);
    RETURN NULL;
  END IF;
  IF p_max_deliveries IS NOT NULL AND v_row.delivery_count >= p_max_deliveries AND p_dlq IS NOT NULL THEN
    PERFORM ${s}.dead_letter(p_seq, p_dlq, p_source, 'MaxDeliveryCountExceeded', NULL, false, p_now);
    RETURN NULL;
  END IF;
  UPDATE ${s}.messages SET state = 2, visible_at = p_until, lock_token = gen_random_uuid(),
    delivery_count = delivery_count + 1, first_delivered_at = coalesce(first_delivered_at, p_now),
    delivered_at = p_now
  WHERE seq = p_seq RETURNING * INTO v_row;
  RETURN v_row;
END $$;

-- Messages whose time to live has ended leave the queue a hundred at a time (dead-lettered or
-- dropped), wherever they stand but in a live lock, so a queue nobody drains does not keep them.
CREATE FUNCTION ${s}.expire(p_queue int, p_now bigint, p_dlq int, p_source text, p_dead_on_expiry boolean)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint;
BEGIN
  FOR v_seq IN
    SELECT seq FROM ${s}.messages WHERE queue_id = p_queue AND expires_at <= p_now
      AND NOT (state = 2 AND visible_at > p_now)
    ORDER BY expires_at LIMIT 100 FOR UPDATE SKIP LOCKED
  LOOP
    PERFORM ${s}.dead_letter(v_seq, CASE WHEN p_dead_on_expiry THEN p_dlq END, p_source, 'TTLExpired', NULL, true, p_now);
  END LOOP;
END $$;

-- Delayed and locked messages of a queue whose time came are ready again, a thousand at a time;
-- those whose deliveries are used up go to the dead-letter queue instead (where there is one).
CREATE FUNCTION ${s}.make_due_ready(p_queue int, p_now bigint, p_max_deliveries int, p_dlq int, p_source text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_seq bigint;
BEGIN
  UPDATE ${s}.messages SET state = 0 WHERE seq IN (
    SELECT seq FROM ${s}.messages WHERE queue_id = p_queue AND state > 0 AND visible_at <= p_now
      AND (p_dlq IS NULL OR p_max_deliveries IS NULL OR delivery_count < p_max_deliveries)
    ORDER BY visible_at LIMIT 1000 FOR UPDATE SKIP LOCKED);
  IF p_dlq IS NULL OR p_max_deliveries IS NULL THEN
    RETURN;
  END IF;
  FOR v_seq IN
    SELECT seq FROM ${s}.messages WHERE queue_id = p_queue AND state > 0 AND visible_at <= p_now
      AND delivery_count >= p_max_deliveries
    ORDER BY visible_at LIMIT 100 FOR UPDATE SKIP LOCKED
  LOOP
    PERFORM ${s}.dead_letter(v_seq, p_dlq, p_source, 'MaxDeliveryCountExceeded', NULL, false, p_now);
  END LOOP;
END $$;

${abandonFunction(s)}

-- Locks the row of session p_session of a FIFO queue if it is free: nobody holds it and none of
-- its messages is in flight. Answers whether it did; a session another receive is reading is
-- skipped, never waited for.
CREATE FUNCTION ${s}.lock_free_session(p_queue int, p_session text, p_now bigint)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM ${s}.groups WHERE queue_id = p_queue AND session_id = p_session AND locked_until <= p_now
    FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  RETURN NOT EXISTS (SELECT 1 FROM ${s}.messages WHERE queue_id = p_queue AND session_id = p_session
    AND state = 2 AND visible_at > p_now);
END $$;

-- The free session of a FIFO queue whose oldest ready message is oldest, its row locked; NULL
-- when none is. Sessions are found through the ready messages in order (an index range), so the
-- cost does not grow with the number of sessions; p_skip are sessions already taken.
CREATE FUNCTION ${s}.next_free_session(p_queue int, p_now bigint, p_skip text[])
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_session text;
  v_tried text[] := p_skip;
BEGIN
  FOR v_session IN
    SELECT session_id FROM ${s}.messages WHERE queue_id = p_queue AND state = 0
    ORDER BY seq LIMIT 1000
  LOOP
    CONTINUE WHEN v_session = ANY (v_tried);
    v_tried := v_tried || v_session;
    IF ${s}.lock_free_session(p_queue, v_session, p_now) THEN
      RETURN v_session;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;

-- One receive from a FIFO queue: from the held session p_session (locked by p_token; the lock's
-- end is the messages' lock), or (p_session NULL) from the free sessions in the order of their
-- oldest ready message. A session's row is locked while it is read, so two receives never take
-- one session. Messages are taken in order, up to the first that is not ready.
CREATE FUNCTION ${s}.receive_groups(p_queue int, p_now bigint, p_max int, p_lock_ms bigint,
  p_max_deliveries int, p_dlq int, p_source text, p_dead_on_expiry boolean, p_session text, p_token uuid)
RETURNS SETOF ${s}.messages LANGUAGE plpgsql AS $$
DECLARE
  v_session text;
  v_taken_sessions text[] := '{}';
  v_until bigint;
  v_message record;
  v_row ${s}.messages;
  v_taken int := 0;
BEGIN
  PERFORM ${s}.expire(p_queue, p_now, p_dlq, p_source, p_dead_on_expiry);
  PERFORM ${s}.make_due_ready(p_queue, p_now, p_max_deliveries, p_dlq, p_source);
  IF p_session IS NOT NULL THEN
    SELECT locked_until INTO v_until FROM ${s}.groups WHERE queue_id = p_queue AND session_id = p_session
      AND lock_token = p_token AND locked_until > p_now FOR UPDATE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'session lock lost' USING ERRCODE = 'QR001';
    END IF;
    v_session := p_session;
  ELSE
    v_session := ${s}.next_free_session(p_queue, p_now, v_taken_sessions);
    v_until := p_now + p_lock_ms;
  END IF;
  WHILE v_session IS NOT NULL LOOP
    FOR v_message IN
      SELECT seq, state, visible_at FROM ${s}.messages
      WHERE queue_id = p_queue AND session_id = v_session AND NOT (state = 2 AND visible_at > p_now)
      ORDER BY seq FOR UPDATE
    LOOP
      EXIT WHEN v_message.state <> 0;
      v_row := ${s}.deliver(v_message.seq, p_now, v_until, p_max_deliveries, p_dlq, p_source, p_dead_on_expiry);
      IF v_row.seq IS NOT NULL THEN
        RETURN NEXT v_row;
        v_taken := v_taken + 1;
      END IF;
      EXIT WHEN v_taken >= p_max;
    END LOOP;
    EXIT WHEN v_taken >= p_max OR p_session IS NOT NULL;
    v_taken_sessions := v_taken_sessions || v_session;
    v_session := ${s}.next_free_session(p_queue, p_now, v_taken_sessions);
  END LOOP;
END $$;

-- Locks a session for a receiver until p_until: the one named (it may have no messages yet),
-- or the free one whose oldest ready message is oldest. Answers the session locked, NULL when
-- none is free; a named session another holds raises QR002.
CREATE FUNCTION ${s}.accept_session(p_queue int, p_now bigint, p_until bigint, p_session text, p_token uuid)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v_session text := p_session;
BEGIN
  IF v_session IS NULL THEN
    -- Used-up messages are left for the next receive to dead-letter.
    PERFORM ${s}.make_due_ready(p_queue, p_now, NULL, NULL, NULL);
    v_session := ${s}.next_free_session(p_queue, p_now, '{}');
    IF v_session IS NULL THEN
      RETURN NULL;
    END IF;
  ELSE
    INSERT INTO ${s}.groups (queue_id, session_id) VALUES (p_queue, v_session) ON CONFLICT DO NOTHING;
    PERFORM 1 FROM ${s}.groups WHERE queue_id = p_queue AND session_id = v_session FOR UPDATE;
    IF NOT ${s}.lock_free_session(p_queue, v_session, p_now) THEN
      RAISE EXCEPTION 'session % is held by another receiver', v_session USING ERRCODE = 'QR002';
    END IF;
  END IF;
  UPDATE ${s}.groups SET lock_kind = 'session', lock_token = p_token, locked_until = p_until
  WHERE queue_id = p_queue AND session_id = v_session;
  RETURN v_session;
END $$;

-- One receive from a standard queue: expired messages leave, delayed and locked messages that came
-- due are ready again (or dead-lettered when their deliveries are used up), then up to p_max ready
-- messages are locked in order in one statement, skipping rows another receive holds.
CREATE FUNCTION ${s}.receive(p_queue int, p_now bigint, p_max int, p_lock_ms bigint,
  p_max_deliveries int, p_dlq int, p_source text, p_dead_on_expiry boolean)
RETURNS SETOF ${s}.messages LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ${s}.expire(p_queue, p_now, p_dlq, p_source, p_dead_on_expiry);
  PERFORM ${s}.make_due_ready(p_queue, p_now, p_max_deliveries, p_dlq, p_source);
  RETURN QUERY
    UPDATE ${s}.messages m SET state = 2, visible_at = p_now + p_lock_ms, lock_token = gen_random_uuid(),
      delivery_count = m.delivery_count + 1, first_delivered_at = coalesce(m.first_delivered_at, p_now),
      delivered_at = p_now
    FROM (
      SELECT seq FROM ${s}.messages WHERE queue_id = p_queue AND state = 0
        AND (expires_at IS NULL OR expires_at > p_now)
        AND (p_dlq IS NULL OR p_max_deliveries IS NULL OR delivery_count < p_max_deliveries)
      ORDER BY seq LIMIT p_max FOR UPDATE SKIP LOCKED) picked
    WHERE m.seq = picked.seq
    RETURNING m.*;
END $$;
`;

// Version 2 replaces two functions of version 1: its redrive also moved delayed messages and those
// of held sessions, and its abandon with a delay held a message out of deliveries until the delay ended.
const VERSION_2 = (s: string) => redriveFunction(s) + abandonFunction(s);

/** Each step takes the schema from version `index` to `index + 1`. */
const MIGRATIONS: readonly ((schema: string) => string)[] = [VERSION_1, VERSION_2, VERSION_3];

/**
 * Creates or migrates `schema` to {@link SCHEMA_VERSION} (tests ask for an older `target`) in one
 * transaction under an advisory lock, so processes starting at once migrate once and the others wait for it.
 */
export async function migrate(pool: PgPool, schema: string, target = SCHEMA_VERSION): Promise<void> {
  let client: Awaited<ReturnType<PgPool["connect"]>>;
  try {
    client = await pool.connect();
  } catch (error) {
    throw pgFailure(`connecting to PostgreSQL`, error);
  }
  const quoted = `"${schema}"`;
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`queue-runtime:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.schema_version (version int NOT NULL)`);
    const found = await client.query<{ version: number }>(`SELECT version FROM ${quoted}.schema_version`);
    const version = found.rows[0]?.version ?? 0;
    if (version > SCHEMA_VERSION)
      throw new QueueError(
        "Configuration",
        `postgres schema ${schema} has version ${version}; this queue-runtime understands up to ${SCHEMA_VERSION}`,
      );
    for (let step = version; step < target; step++) await client.query(MIGRATIONS[step]!(quoted));
    if (found.rows.length === 0)
      await client.query(`INSERT INTO ${quoted}.schema_version VALUES ($1)`, [target]);
    else if (version < target)
      await client.query(`UPDATE ${quoted}.schema_version SET version = $1`, [target]);
    await client.query("COMMIT");
    client.release();
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    client.release(true);
    throw QueueError.is(error) ? error : pgFailure(`migrating postgres schema ${schema}`, error);
  }
}

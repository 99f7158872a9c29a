import pg from "pg";
import { afterAll } from "vitest";
import { createClient } from "../../src/index.js";
import type { MakeModelClient } from "../../src/testing/model/index.js";
import type { ModelOptions } from "../../src/testing/model/queue-model.js";
import { POSTGRES_URL } from "../providers/postgres/database.js";

/**
 * Where the postgres provider's semantics differ from the engine's: a session's later messages
 * wait for a delayed one, and a dead-letter queue another queue names cannot be deleted.
 */
export const POSTGRES_SEMANTICS: ModelOptions = {
  sessionOrder: "strict",
  deadLetterQueueDeletion: "refused",
};

/**
 * Clients of the postgres provider with one schema per run (its queues are the run's alone),
 * shared by the run's two clients and on the run's virtual time; the schemas are dropped after
 * the file's tests.
 */
export function postgresPerRun(): MakeModelClient {
  const schemas = new Set<string>();
  afterAll(async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await client.end();
    }
  });
  return ({ clock, namespace }) => {
    const schema = `qr_model_${namespace}`;
    schemas.add(schema);
    return createClient({
      provider: { type: "postgres", connectionString: POSTGRES_URL, schema, clock },
      createQueues: false,
    });
  };
}

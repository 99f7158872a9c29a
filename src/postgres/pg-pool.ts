// The few members of node-postgres that our PostgreSQL code uses (the receiving store, the
// postgres provider), so that our types do not require @types/pg of an application that passes its own pg.Pool.

/** A statement to run: named statements are prepared once per connection and planned once. */
export interface PgQuery {
  readonly name?: string;
  readonly text: string;
  readonly values?: unknown[];
}

/** A query's answer. */
export interface PgResult<Row> {
  readonly rows: Row[];
  readonly rowCount: number | null;
}

/** A connection checked out of a pool. */
export interface PgPoolClient {
  query<Row = Record<string, unknown>>(query: string | PgQuery, values?: unknown[]): Promise<PgResult<Row>>;
  /** Returns the connection; with an error, the pool discards it instead. */
  release(error?: Error | boolean): void;
  on(event: "error", listener: (error: Error) => void): unknown;
  off(event: "error", listener: (error: Error) => void): unknown;
}

/** A `pg.Pool`, or anything shaped like one. */
export interface PgPool {
  connect(): Promise<PgPoolClient>;
  query<Row = Record<string, unknown>>(query: string | PgQuery, values?: unknown[]): Promise<PgResult<Row>>;
  end(): Promise<void>;
}

import { QueueError } from "../../core/errors.js";

/** What one call did: its value, or the code of the `QueueError` it failed with. */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: string; readonly error?: QueueError };

/** Runs a model call, turning a `QueueError` into its outcome. */
export function modelOutcome<T>(call: () => T): Outcome<T> {
  try {
    return { ok: true, value: call() };
  } catch (error) {
    return failed(error);
  }
}

/** Runs a provider call, turning a `QueueError` into its outcome; anything else is a test failure. */
export async function realOutcome<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return failed(error);
  }
}

// Only queue errors are answers; a TypeError or the like is a bug of the test or the provider and stops the run.
function failed(error: unknown): { ok: false; code: string; error: QueueError } {
  if (error instanceof QueueError) return { ok: false, code: error.code, error };
  throw error;
}

/** A disagreement between the model and the provider, with what each did. */
export class ModelMismatch extends Error {
  override readonly name = "ModelMismatch";
}

/** Fails with a {@link ModelMismatch} when the two outcomes differ in success or error code; returns both values when both succeeded. */
export function sameOutcome<M, R>(
  what: string,
  model: Outcome<M>,
  real: Outcome<R>,
): { model: M; real: R } | undefined {
  if (model.ok && real.ok) return { model: model.value, real: real.value };
  if (!model.ok && !real.ok && model.code === real.code) return undefined;
  throw new ModelMismatch(`${what}: model ${describe(model)}, provider ${describe(real)}`);
}

/** Fails with a {@link ModelMismatch} unless the two values are deeply equal (compared as JSON). */
export function sameValue(what: string, model: unknown, real: unknown): void {
  const m = JSON.stringify(model);
  const r = JSON.stringify(real);
  if (m !== r) throw new ModelMismatch(`${what}: model ${m}, provider ${r}`);
}

/** Runs `model` and `real`, which must succeed or fail alike and, when they succeed, answer the same. */
export async function sameResult<T>(what: string, model: () => T, real: () => Promise<T>): Promise<void> {
  const both = sameOutcome(what, modelOutcome(model), await realOutcome(real));
  if (both !== undefined) sameValue(what, both.model, both.real);
}

function describe(outcome: Outcome<unknown>): string {
  return outcome.ok ? "succeeded" : `failed with ${outcome.code}`;
}

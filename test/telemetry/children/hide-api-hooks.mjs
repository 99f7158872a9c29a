/** Resolves everything as before, but @opentelemetry/api as a package that is not installed. */
export async function resolve(specifier, context, next) {
  if (specifier === "@opentelemetry/api" || specifier.startsWith("@opentelemetry/api/")) {
    const error = new Error(`Cannot find package '${specifier}'`);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}

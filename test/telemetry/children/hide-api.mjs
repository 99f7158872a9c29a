// Makes @opentelemetry/api unresolvable in this process, as in an application that does not install it.
import { register } from "node:module";

register(new URL("./hide-api-hooks.mjs", import.meta.url));

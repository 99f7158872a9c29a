import { DASHBOARD_HTML } from "./page-html.js";
import { DASHBOARD_SCRIPT } from "./page-script.js";
import { DASHBOARD_CSS } from "./page-style.js";

/** One file the dashboard serves, with its type. */
export interface DashboardAsset {
  readonly contentType: string;
  readonly text: string;
}

/** The page and what it loads: all of it ships in the package, nothing comes from the network. */
export const DASHBOARD_ASSETS = {
  page: { contentType: "text/html; charset=utf-8", text: DASHBOARD_HTML },
  style: { contentType: "text/css; charset=utf-8", text: DASHBOARD_CSS },
  script: { contentType: "text/javascript; charset=utf-8", text: DASHBOARD_SCRIPT },
  icon: {
    contentType: "image/svg+xml",
    text: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="1" y="3" width="14" height="3" rx="1" fill="#2457c5"/><rect x="1" y="7" width="10" height="3" rx="1" fill="#2457c5"/><rect x="1" y="11" width="6" height="3" rx="1" fill="#2457c5"/></svg>',
  },
} as const satisfies Record<string, DashboardAsset>;

/** The page may load its own script and style and call its own API, and nothing else: no inline script, no other origin. */
export const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
} as const;

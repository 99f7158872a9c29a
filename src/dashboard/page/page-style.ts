/** The dashboard's style sheet: system fonts only, light and dark. */
export const DASHBOARD_CSS = `:root {
  color-scheme: light dark;
  --bg: #f7f7f8; --panel: #fff; --text: #1d1f23; --muted: #626873; --line: #dcdfe4;
  --accent: #2457c5; --warn: #b3261e; --ok: #1e7a3c; --code: #f1f2f4;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #15171a; --panel: #1d2024; --text: #e6e8eb; --muted: #9aa1ab; --line: #30343a;
    --accent: #7aa2ff; --warn: #ff8a80; --ok: #7bd88f; --code: #25282d; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 12px 20px; padding: 12px 24px;
  background: var(--panel); border-bottom: 1px solid var(--line); }
h1 { font-size: 18px; margin: 0; }
h2 { font-size: 16px; margin: 0 0 12px; }
h3 { font-size: 14px; margin: 20px 0 8px; }
main { display: grid; gap: 20px; padding: 20px 24px; grid-template-columns: minmax(320px, 1fr) minmax(360px, 1.4fr); }
main > section { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 16px; min-width: 0; }
#deliveries { grid-column: 1 / -1; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { color: var(--muted); font-weight: 600; font-size: 12px; }
td.count { font-variant-numeric: tabular-nums; text-align: right; }
tr.selected { background: color-mix(in srgb, var(--accent) 12%, transparent); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.tag { margin-left: 8px; font-size: 11px; color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; }
.provider, .muted, .empty { color: var(--muted); }
.live { font-size: 12px; padding: 2px 8px; border-radius: 10px; border: 1px solid var(--line); }
.live.on { color: var(--ok); }
.live.off { color: var(--warn); }
.token { margin-left: auto; display: flex; gap: 8px; align-items: center; color: var(--muted); }
.hidden-label { position: absolute; left: -9999px; }
.notice { margin: 0; padding: 8px 24px; min-height: 1.45em; }
.notice.problem, .problem { color: var(--warn); }
.tools { display: flex; gap: 16px; align-items: flex-end; flex-wrap: wrap; }
.send { display: grid; gap: 4px; flex: 1; min-width: 240px; }
label { font-size: 12px; color: var(--muted); }
textarea, input { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; padding: 6px;
  border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--text); }
button { font: inherit; padding: 5px 12px; border-radius: 4px; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; cursor: pointer; justify-self: start; }
button.quiet { background: transparent; color: var(--accent); }
button.warn { background: transparent; color: var(--warn); border-color: var(--warn); }
td.actions { white-space: nowrap; }
td.actions button + button { margin-left: 6px; }
.mono, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.messages { display: grid; gap: 6px; }
details.message { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; }
details.message summary { cursor: pointer; display: flex; gap: 10px; min-width: 0; }
.preview { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-family: ui-monospace, monospace; color: var(--muted); }
.state, .reason { flex: none; font-size: 12px; font-weight: 600; }
.state.inFlight { color: var(--accent); }
.state.delayed { color: var(--muted); }
.reason { color: var(--warn); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.label { margin: 4px 0; font-size: 12px; color: var(--muted); }
pre.body { margin: 0; padding: 8px; background: var(--code); border-radius: 4px; white-space: pre-wrap;
  overflow-wrap: anywhere; max-height: 320px; overflow: auto; }
#redrive { margin-bottom: 8px; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } }
`;

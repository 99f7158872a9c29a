/** The dashboard's page: structure only; everything in it that comes from queues is filled in by the script as text. */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>queue-runtime dashboard</title>
<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body>
<header>
  <h1>queue-runtime</h1>
  <span class="provider">provider: <strong id="provider">…</strong></span>
  <span id="live" class="live off">connecting</span>
  <form id="token-form" class="token">
    <span id="token-state"></span>
    <label for="token-input" class="hidden-label">Token</label>
    <input id="token-input" type="password" autocomplete="off" placeholder="token">
    <button type="submit" class="quiet">Use token</button>
  </form>
</header>
<p id="notice" class="notice" role="status" aria-live="polite"></p>
<main>
  <section id="queues" aria-labelledby="queues-title">
    <h2 id="queues-title">Queues</h2>
    <table>
      <thead><tr><th scope="col">Queue</th><th scope="col">Active</th><th scope="col">In flight</th><th scope="col">Delayed</th><th scope="col">Dead-lettered</th></tr></thead>
      <tbody id="queue-rows"></tbody>
    </table>
  </section>
  <section id="queue" aria-labelledby="queue-name" hidden>
    <h2 id="queue-name"></h2>
    <p id="queue-missing" class="problem" hidden>This queue does not exist (any more).</p>
    <div class="tools">
      <form id="send-form" class="send">
        <label for="send-body">Message body</label>
        <textarea id="send-body" rows="3" placeholder='{"hello":"world"}'></textarea>
        <label for="send-session">Session id (FIFO queues)</label>
        <input id="send-session" autocomplete="off">
        <button type="submit">Send</button>
      </form>
      <div class="danger">
        <button type="button" id="purge" class="warn">Purge</button>
      </div>
    </div>
    <section id="messages-section" aria-labelledby="messages-title">
      <h3 id="messages-title">Messages</h3>
      <div id="messages"></div>
    </section>
    <section id="dead-letters-section" aria-labelledby="dead-letters-title">
      <h3 id="dead-letters-title">Dead letters <span id="dead-letter-queue" class="muted"></span></h3>
      <button type="button" id="redrive" hidden>Redrive</button>
      <div id="dead-letters"></div>
    </section>
  </section>
  <section id="deliveries" aria-labelledby="deliveries-title" hidden>
    <h2 id="deliveries-title">Failed deliveries and parked messages</h2>
    <table>
      <thead><tr><th scope="col">Id</th><th scope="col">Kind</th><th scope="col">Label</th><th scope="col">Reason</th><th scope="col">Problems</th><th scope="col">Actions</th></tr></thead>
      <tbody id="delivery-rows"></tbody>
    </table>
  </section>
</main>
</body>
</html>
`;

/** The dashboard's script: plain JavaScript with no dependencies; it renders with textContent only, never as HTML. */
export const DASHBOARD_SCRIPT = `"use strict";
(function () {
  var API = "/dashboard/api/";
  var TOKEN_HEADER = "x-queue-runtime-token";
  var token = new URLSearchParams(location.search).get("token") || "";
  var state = { snapshot: null, selected: null, counts: "", deadLetterQueue: null, opened: new Set() };

  /** Builds an element; strings become text nodes, so nothing from the server is ever read as HTML. */
  function el(tag, props) {
    var node = document.createElement(tag);
    if (props)
      Object.keys(props).forEach(function (key) {
        var value = props[key];
        if (value === undefined || value === null || value === false) return;
        if (key === "text") node.textContent = String(value);
        else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
        else node.setAttribute(key, value === true ? "" : String(value));
      });
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === undefined || child === null || child === false) continue;
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** The element of the page with this id. */
  function byId(id) {
    return document.getElementById(id);
  }

  /** Replaces the children of node with the other arguments that are not empty. */
  function replace(node) {
    var children = Array.prototype.slice.call(arguments, 1);
    node.replaceChildren.apply(node, children.filter(function (child) { return child; }));
  }

  /** Says what happened in the notice line; problem marks a failure. */
  function notice(text, problem) {
    var line = byId("notice");
    line.textContent = text;
    line.className = problem ? "notice problem" : "notice";
  }

  /** The words for a refused or failed call. */
  function failureText(status, body) {
    var error = body && body.error ? body.error : { code: "Provider", message: "HTTP " + status };
    var refused = status === 403 ? "Refused (403): " : "Failed (" + status + " " + error.code + "): ";
    return refused + error.message;
  }

  /** Reads a path of the API; rejects with the server's words. */
  function read(path) {
    return fetch(API + path, { headers: { accept: "application/json" } }).then(answer);
  }

  /** Asks the API for a change, with the token. */
  function change(path, body) {
    var headers = { "content-type": "application/json", accept: "application/json" };
    if (token) headers[TOKEN_HEADER] = token;
    return fetch(API + path, { method: "POST", headers: headers, body: JSON.stringify(body || {}) }).then(answer);
  }

  /** The JSON of an answer, or a rejection with its failure in words. */
  function answer(response) {
    return response.json().then(
      function (body) {
        if (!response.ok) throw new Error(failureText(response.status, body));
        return body;
      },
      function () {
        throw new Error(failureText(response.status, null));
      },
    );
  }

  /** The API path of an action on a queue. */
  function path(queue, action) {
    return "queues/" + encodeURIComponent(queue) + "/" + action;
  }

  /** Runs a change, then says how it went and reads the selected queue again. */
  function act(promise, said) {
    return promise.then(
      function (result) {
        notice(said(result), false);
        loadSelected();
      },
      function (error) {
        notice(error.message, true);
      },
    );
  }

  /** The summary of a queue in the last snapshot, or null. */
  function queueNamed(name) {
    var queues = state.snapshot ? state.snapshot.queues : [];
    for (var i = 0; i < queues.length; i++) if (queues[i].name === name) return queues[i];
    return null;
  }

  /** Shows the last snapshot: the queues and their counts, the receiver's items, and reads the open queue again when its counts moved. */
  function renderSnapshot() {
    var snapshot = state.snapshot;
    if (state.selected === null && snapshot.queues.length > 0) selectFirst(snapshot.queues);
    byId("provider").textContent = snapshot.provider;
    var rows = snapshot.queues.map(function (queue) {
      var link = el("a", { href: "#queue=" + encodeURIComponent(queue.name), text: queue.name });
      var role = queue.deadLetterSources.length > 0
        ? el("span", { class: "tag", text: "dead-letter queue" })
        : queue.topic !== null ? el("span", { class: "tag", text: "subscription of " + queue.topic }) : null;
      return el(
        "tr",
        { "data-queue": queue.name, class: queue.name === state.selected ? "selected" : null },
        el("th", { scope: "row" }, link, role),
        el("td", { class: "count", "data-count": "active", text: queue.active }),
        el("td", { class: "count", "data-count": "inFlight", text: queue.inFlight }),
        el("td", { class: "count", "data-count": "delayed", text: queue.delayed }),
        el("td", { class: "count", "data-count": "deadLettered", text: queue.deadLettered }),
      );
    });
    if (rows.length === 0) rows = [el("tr", null, el("td", { colspan: "5", class: "empty", text: "No queues yet." }))];
    replace(byId("queue-rows"), ...rows);
    renderDeliveries(snapshot.deliveries);
    var selected = state.selected === null ? null : queueNamed(state.selected);
    var counts = selected ? JSON.stringify([selected, selected.deadLetterQueue && queueNamed(selected.deadLetterQueue)]) : "";
    if (counts !== state.counts) {
      state.counts = counts;
      loadSelected();
    }
  }

  /** Opens the first queue that is not a dead-letter queue, so that a first visit shows one. */
  function selectFirst(queues) {
    var first = queues.filter(function (queue) { return queue.deadLetterSources.length === 0; })[0] || queues[0];
    state.selected = first.name;
    history.replaceState(null, "", "#queue=" + encodeURIComponent(first.name));
  }

  /** Shows the failed deliveries and parked messages, each with Retry and Dismiss. */
  function renderDeliveries(items) {
    var section = byId("deliveries");
    section.hidden = items === null;
    if (items === null) return;
    var rows = items.map(function (item) {
      var problems = item.problems.map(function (problem) {
        return (problem.field === "" ? "(body)" : problem.field) + ": " + problem.rule;
      });
      return el(
        "tr",
        { "data-item": item.id },
        el("td", { class: "mono", text: item.id }),
        el("td", { text: item.kind === "parked" ? "parked message" : "failed delivery" }),
        el("td", { text: item.label }),
        el("td", { text: item.reason }),
        el("td", { text: problems.join(", ") }),
        el(
          "td",
          { class: "actions" },
          el("button", { type: "button", text: "Retry", onclick: function () {
            act(change("deliveries/" + encodeURIComponent(item.id) + "/retry"), function () {
              return "Retried " + item.id + ": the receiver's next tick takes it again.";
            });
          } }),
          el("button", { type: "button", class: "quiet", text: "Dismiss", onclick: function () {
            act(change("deliveries/" + encodeURIComponent(item.id) + "/dismiss"), function () {
              return "Dismissed " + item.id + ".";
            });
          } }),
        ),
      );
    });
    if (rows.length === 0)
      rows = [el("tr", null, el("td", { colspan: "6", class: "empty", text: "No failed deliveries or parked messages." }))];
    replace(byId("delivery-rows"), ...rows);
  }

  /** One message as a disclosure: its summary line, and every field once opened. */
  function messageItem(message, asDeadLetter) {
    var letter = message.deadLetter;
    var preview = message.bodyEncoding === "base64" ? "(binary, " + message.bodyBytes + " bytes)" : message.body;
    var summary = asDeadLetter && letter
      ? el("summary", null, el("span", { class: "reason", text: letter.reason || "(no reason)" }), el("span", { class: "preview", text: preview }))
      : el("summary", null, el("span", { class: "state " + message.state, text: message.state }), el("span", { class: "preview", text: preview }));
    var fields = [
      ["Message id", message.messageId],
      ["Sequence", message.sequenceNumber],
      ["State", message.state],
      ["Deliveries", message.deliveryCount],
      ["Enqueued", message.enqueuedAt],
    ];
    if (message.sessionId !== null) fields.push(["Session", message.sessionId]);
    if (letter) {
      fields.push(["Reason", letter.reason === null ? "" : letter.reason]);
      fields.push(["Description", letter.description === null ? "" : letter.description]);
      fields.push(["Source queue", letter.sourceQueue === null ? "" : letter.sourceQueue]);
    }
    Object.keys(message.attributes).forEach(function (name) {
      if (!letter || name.indexOf("DeadLetter") !== 0) fields.push(["Attribute " + name, message.attributes[name]]);
    });
    var list = el("dl", null);
    fields.forEach(function (field) {
      list.appendChild(el("dt", { text: field[0] }));
      list.appendChild(el("dd", { text: field[1] }));
    });
    var bodyLabel = message.bodyEncoding === "base64" ? "Body (base64)" : "Body";
    if (message.truncated) bodyLabel += ", first part of " + message.bodyBytes + " bytes";
    // Which messages are open survives the page being read again when counts move.
    var key = (asDeadLetter ? "dead-letter:" : "message:") + message.messageId;
    var item = el(
      "details",
      { class: asDeadLetter ? "message dead-letter" : "message", "data-message-id": message.messageId, open: state.opened.has(key) },
      summary,
      list,
      el("p", { class: "label", text: bodyLabel }),
      el("pre", { class: "body", text: message.body }),
    );
    // Noted on the click itself, before the toggle, so that a read landing in between keeps it.
    summary.addEventListener("click", function () {
      if (item.open) state.opened.delete(key);
      else state.opened.add(key);
    });
    return item;
  }

  /** A page of messages as a list of disclosures, or words saying it is empty. */
  function messageList(page, asDeadLetter, empty) {
    if (page.messages.length === 0) return el("p", { class: "empty", text: empty });
    var list = el("div", { class: "messages" });
    page.messages.forEach(function (message) {
      list.appendChild(messageItem(message, asDeadLetter));
    });
    return list;
  }

  /** What a failed read says in place of what it could not show. */
  function problemText(error) {
    return el("p", { class: "problem", text: error.message });
  }

  /** Words for a provider that cannot peek. */
  function cannotPeek() {
    return el("p", {
      class: "empty",
      text: "This provider (" + state.snapshot.provider + ") cannot show messages without receiving them.",
    });
  }

  /** Reads the selected queue's messages and dead letters again. */
  function loadSelected() {
    var name = state.selected;
    var panel = byId("queue");
    if (name === null || !state.snapshot) {
      panel.hidden = true;
      return;
    }
    var queue = queueNamed(name);
    panel.hidden = false;
    byId("queue-name").textContent = name;
    byId("queue-missing").hidden = queue !== null;
    var isDeadLetterQueue = queue !== null && queue.deadLetterSources.length > 0;
    byId("messages-section").hidden = isDeadLetterQueue;
    if (isDeadLetterQueue) replace(byId("messages"));
    else if (!state.snapshot.peek) replace(byId("messages"), cannotPeek());
    else
      read(path(name, "messages")).then(function (page) {
        if (state.selected !== name) return;
        var more = page.next ? el("p", { class: "empty", text: "Showing the first " + page.messages.length + " messages." }) : null;
        replace(byId("messages"), messageList(page, false, "No messages."), more);
      }, function (error) {
        replace(byId("messages"), problemText(error));
      });
    read(path(name, "dead-letters")).then(function (page) {
      if (state.selected !== name) return;
      state.deadLetterQueue = page === null ? null : page.queue;
      byId("redrive").hidden = page === null;
      byId("dead-letter-queue").textContent = page === null ? "" : "in " + page.queue;
      var shown;
      if (page === null) shown = el("p", { class: "empty", text: "This queue has no dead-letter queue." });
      else if (page.messages === null) shown = cannotPeek();
      else shown = messageList(page, true, "No dead letters.");
      replace(byId("dead-letters"), shown);
    }, function (error) {
      replace(byId("dead-letters"), problemText(error));
    });
  }

  /** Opens the queue the address names. */
  function select() {
    var match = /^#queue=(.*)$/.exec(location.hash);
    state.selected = match ? decodeURIComponent(match[1]) : null;
    state.counts = "";
    if (state.snapshot) renderSnapshot();
    loadSelected();
  }

  /** Follows the server-sent snapshots. */
  function listen() {
    var live = byId("live");
    var events = new EventSource(API + "events");
    events.addEventListener("snapshot", function (event) {
      state.snapshot = JSON.parse(event.data);
      live.textContent = "live";
      live.className = "live on";
      renderSnapshot();
    });
    events.addEventListener("failure", function (event) {
      var failure = JSON.parse(event.data).error;
      live.textContent = "cannot read the queues: " + failure.message;
      live.className = "live off";
    });
    events.onerror = function () {
      live.textContent = "reconnecting";
      live.className = "live off";
    };
  }

  /** Says whether changes will carry a token. */
  function showToken() {
    byId("token-state").textContent = token ? "Changes allowed with the token given." : "Read only: changes need the token queue-runtime printed at start.";
  }

  /** Wires the forms and buttons, opens the named queue and starts listening. */
  function start() {
    showToken();
    byId("token-form").addEventListener("submit", function (event) {
      event.preventDefault();
      // An empty submit keeps the token in use: only a new one replaces it.
      var given = byId("token-input").value.trim();
      if (given) token = given;
      byId("token-input").value = "";
      showToken();
    });
    byId("send-form").addEventListener("submit", function (event) {
      event.preventDefault();
      var name = state.selected;
      var body = byId("send-body").value;
      var sessionId = byId("send-session").value.trim();
      act(change(path(name, "messages"), { body: body, sessionId: sessionId || undefined }), function (result) {
        byId("send-body").value = "";
        return "Sent " + result.messageId + " to " + name + ".";
      });
    });
    byId("purge").addEventListener("click", function () {
      var name = state.selected;
      if (!window.confirm("Purge every message of " + name + "? They cannot be brought back.")) {
        notice("Nothing was purged.", false);
        return;
      }
      act(change(path(name, "purge")), function (result) {
        return "Purged " + result.purged + " messages from " + name + ".";
      });
    });
    byId("redrive").addEventListener("click", function () {
      var queue = state.deadLetterQueue;
      if (!queue) return;
      act(change(path(queue, "redrive")), function (result) {
        return "Redrove " + result.moved + " messages from " + queue + " back to their queues.";
      });
    });
    window.addEventListener("hashchange", select);
    select();
    listen();
  }

  start();
})();
`;

// Live updates of the game page (docs/architecture.md, "Live updates"). A server-sent events stream says
// only "this game is now at revision V"; when the page shows an older revision it asks the poll
// view for what changed, exactly as its 10-second poll would (same element, same URL), so
// everything the page shows still comes through the views. The answer is only the parts of the
// play area that changed, as htmx out-of-band swaps (games/web/live_parts.py): the poll element
// itself swaps nothing.
// - While the stream is healthy the 10-second poll is skipped, except once a minute as a safety
//   net (a lost message costs at most that). When the stream fails, the poll takes over at once
//   and the stream is tried again after a pause that doubles up to 5 minutes.
// - A move being sent is never overtaken: a refresh waits until the page's requests are answered.
// - A tab hidden for 30 s closes its stream and catches up when shown again (browsers allow only
//   a few open connections per site over HTTP/1.1).
// - The stream's "end" event (the viewer logged out or may no longer see the game) stops it.
// - A watcher's page (no seat in play) is carried its part in the stream: a "part" event holds
//   what the poll view would answer it (games/web/live.py). The page applies it when it still
//   shows the revision the part starts from ("from") and no request of its own is in flight;
//   otherwise it asks, as for a "revision" event. The stream learns that revision and the page's
//   token from its URL (?v=&p=, the poll element's), read anew each time the stream opens.
// The template passes the stream's and the poll's URLs as data attributes of this script tag; its
// data-state says "open", "closed" or "ended", and data-carried how many parts the stream carried
// that the page applied (for tests and the curious).
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.EventSource || !window.htmx) {
    return;
  }
  var liveUrl = script.dataset.liveUrl;
  var pollPath = script.dataset.pollUrl;
  var SAFETY_MS = 60000;
  var STALE_MS = 75000; // no event for this long (pings come every 25 s): the stream is dead
  var HIDDEN_MS = 30000;
  var FIRST_PAUSE_MS = 2000;
  var MAX_PAUSE_MS = 300000;

  var source = null;
  var lastHeard = 0;
  var pause = FIRST_PAUSE_MS;
  var retryTimer = null;
  var hiddenTimer = null;
  var wanted = -1; // the newest revision the stream announced
  var lastAsked = Date.now(); // when the page last asked the poll view
  var busy = 0; // htmx requests in flight
  var ours = false; // the request being issued is a live refresh
  var ended = false;

  function pollElement() {
    return document.querySelector('[hx-get^="' + pollPath + '"]');
  }

  function shownRevision(element) {
    var url = new URL(element.getAttribute("hx-get"), window.location.href);
    var revision = parseInt(url.searchParams.get("v"), 10);
    return isNaN(revision) ? -1 : revision;
  }

  function healthy() {
    return source !== null && source.readyState === 1 && Date.now() - lastHeard < STALE_MS;
  }

  function setState(state) {
    script.dataset.state = state;
  }

  function refresh() {
    var element = pollElement();
    if (!element) {
      stop(); // the game is over: nothing more to follow
      return;
    }
    if (busy > 0 || wanted <= shownRevision(element)) {
      return;
    }
    ours = true;
    try {
      htmx.ajax("GET", element.getAttribute("hx-get"), {
        source: element,
        target: element,
        swap: "none",
      });
    } finally {
      ours = false;
    }
  }

  function heard() {
    lastHeard = Date.now();
    pause = FIRST_PAUSE_MS;
    setState("open");
  }

  function streamUrl(element) {
    var url = new URL(liveUrl, window.location.href);
    var asked = new URL(element.getAttribute("hx-get"), window.location.href).searchParams;
    if (asked.get("v") !== null && asked.get("p")) {
      url.searchParams.set("v", asked.get("v"));
      url.searchParams.set("p", asked.get("p"));
    }
    return url.toString();
  }

  function announced(data) {
    if (typeof data.revision === "number" && data.revision > wanted) {
      wanted = data.revision;
    }
    refresh();
  }

  function parsed(event) {
    try {
      return JSON.parse(event.data);
    } catch (error) {
      return null;
    }
  }

  function open() {
    var element = pollElement();
    if (source !== null || ended || document.hidden || !element) {
      return;
    }
    clearTimeout(retryTimer);
    source = new EventSource(streamUrl(element));
    source.addEventListener("open", heard);
    source.addEventListener("ping", heard);
    source.addEventListener("revision", function (event) {
      heard();
      var data = parsed(event);
      if (data !== null) {
        announced(data);
      }
    });
    source.addEventListener("part", function (event) {
      heard();
      var data = parsed(event);
      if (data === null) {
        return;
      }
      var element = pollElement();
      if (element && busy === 0 && typeof data.html === "string" && data.from === shownRevision(element)) {
        // One detail object for all its parts, as a poll's answer has (js/game.js measures the
        // table once per response, not once per part).
        htmx.swap(element, data.html, { swapStyle: "none" }, { eventInfo: {} });
        lastAsked = Date.now(); // as good as an answer of the poll view
        script.dataset.carried = String(parseInt(script.dataset.carried || "0", 10) + 1);
      }
      announced(data); // asks only if the page is still behind
    });
    source.addEventListener("end", function () {
      ended = true;
      stop();
      setState("ended");
    });
    source.addEventListener("error", function () {
      // CONNECTING: the browser reconnects by itself (the server ended a long stream).
      // CLOSED: it gave up (an error status): poll, and try again later.
      if (source !== null && source.readyState === 2) {
        close();
        retryTimer = setTimeout(open, pause);
        pause = Math.min(pause * 2, MAX_PAUSE_MS);
      } else {
        setState("closed");
      }
    });
  }

  function close() {
    if (source !== null) {
      source.close();
      source = null;
    }
    if (!ended) {
      setState("closed");
    }
  }

  function stop() {
    close();
    clearTimeout(retryTimer);
  }

  function isPoll(path) {
    return typeof path === "string" && path.indexOf(pollPath) === 0;
  }

  // The 10-second poll: skipped while the stream is healthy, but for the safety net.
  document.addEventListener("htmx:confirm", function (event) {
    var detail = event.detail || {};
    if (ours || !isPoll(detail.path)) {
      return;
    }
    if (healthy() && Date.now() - lastAsked < SAFETY_MS) {
      event.preventDefault();
    }
  });

  // A poll from a page in front of its player says so: the player is at the table, and is not
  // emailed "your turn" meanwhile (the view marks their seat seen, once a minute at most; a page
  // left open with the live stream healthy still asks once a minute, the safety net above).
  document.addEventListener("htmx:configRequest", function (event) {
    var detail = event.detail || {};
    if (isPoll(detail.path) && !document.hidden && detail.parameters) {
      detail.parameters.here = "1";
    }
  });

  document.addEventListener("htmx:beforeSend", function (event) {
    busy += 1;
    var detail = event.detail || {};
    if (detail.requestConfig && isPoll(detail.requestConfig.path)) {
      lastAsked = Date.now();
    }
  });

  document.addEventListener("htmx:afterRequest", function () {
    busy = Math.max(0, busy - 1);
    window.setTimeout(refresh, 0); // a revision announced meanwhile
  });

  document.addEventListener("htmx:afterSettle", refresh);

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      clearTimeout(hiddenTimer);
      hiddenTimer = setTimeout(close, HIDDEN_MS);
    } else {
      clearTimeout(hiddenTimer);
      open();
    }
  });

  window.addEventListener("pagehide", stop);

  // A poll answered after its play area was replaced (the player chose a card meanwhile) holds
  // the changes to what that play area showed: the newer one is in the page already, so the
  // answer is dropped (applied, its swaps would land in the detached old play area, or nowhere).
  // The event is dispatched on the poll element itself, so the guard sits on each one.
  var guarded = window.WeakSet ? new WeakSet() : null;

  function dropIfReplaced(event) {
    if (!document.body.contains(event.currentTarget)) {
      event.detail.shouldSwap = false;
    }
  }

  htmx.onLoad(function (content) {
    var poll = content.id === "poll" ? content : content.querySelector && content.querySelector("#poll");
    if (poll && guarded && !guarded.has(poll)) {
      guarded.add(poll);
      poll.addEventListener("htmx:beforeSwap", dropIfReplaced);
    }
  });

  setState("closed");
  open();
})();

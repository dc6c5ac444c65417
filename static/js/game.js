// The game page's table: what htmx cannot do by itself (issue 25).
// 1. The table fills the screen: the maze gets the height left between the players and the
//    decision bar (--maze-h, --bar-h on <html>, read by css/table.css).
// 2. The maze is scaled to fit that area (CSS zoom on its table), and follows it as the maze
//    grows. A player may zoom in: buttons, Ctrl + wheel (and a touchpad's pinch), a finger
//    pinch, the keys + - 0 on the maze; a zoomed maze pans by dragging, scrolling and swiping.
//    The zoom and the scroll position survive htmx's swaps of the play area.
// 3. After a player picks a position, the focus moves to its Confirm button. Polls never move
//    the focus.
// 4. A card's help closes once the card is chosen; the newest move lands with a short
//    animation (none under prefers-reduced-motion, css/table.css); the chat box is emptied
//    after a message is sent (it keeps what is typed through the page's refreshes).
(function () {
  "use strict";

  var root = document.documentElement;
  var ZOOM_KEY = "saboteur-maze-zoom";
  var MAX_FIT = 1.6; // a small maze is drawn larger, but not huge
  var MAX_ZOOM = 6; // relative to the fit
  var MAX_SCALE = 2.5; // absolute
  var zoom = readZoom(); // 1 = fitted to the screen
  var saved = null;

  function board() {
    return document.getElementById("board");
  }

  function area() {
    return document.querySelector("#play [data-maze-area]");
  }

  function mazeTable() {
    var container = board();
    return container ? container.querySelector("table.maze") : null;
  }

  function readZoom() {
    try {
      var value = Number(window.sessionStorage.getItem(ZOOM_KEY));
      return value >= 1 && value <= MAX_ZOOM ? value : 1;
    } catch (error) {
      return 1;
    }
  }

  function storeZoom() {
    try {
      window.sessionStorage.setItem(ZOOM_KEY, String(zoom));
    } catch (error) {
      // private mode: the zoom lasts until the next page load
    }
  }

  // -- 1 and 2: the table's size, and the maze fitted into it -----------------------------------

  function layout() {
    watchRoom();
    var main = document.querySelector("#play [data-table-main]");
    var bar = document.getElementById("bar");
    var barHeight = bar ? bar.offsetHeight : 0;
    root.style.setProperty("--bar-h", barHeight + "px");
    if (main) {
      var top = main.getBoundingClientRect().top + window.scrollY;
      var height = window.innerHeight - top - barHeight - 10;
      root.style.setProperty("--maze-h", Math.max(height, 208) + "px");
    }
    fit();
    keepInView(); // the room changed (the bar grew for a confirmation): the goals stay in view
  }

  function scale() {
    var table = mazeTable();
    return table ? Number(table.style.zoom) || 1 : 1;
  }

  // The room the maze may take: on wide screens the table's width less the log's narrowest
  // column and the zoom tools beside the maze (the maze's column then takes the maze's width,
  // --maze-w, and the log the rest); on narrow ones the area less the tools' row under it.
  function room(space, tools) {
    var main = document.querySelector("#play [data-table-main]");
    var side = main && main.querySelector(".side");
    var gap = parseFloat(getComputedStyle(space).columnGap) || 0;
    var beside = tools && getComputedStyle(tools).gridColumnStart === "2";
    if (beside && main && side) {
      var mainGap = parseFloat(getComputedStyle(main).columnGap) || 0;
      var sideMin = parseFloat(getComputedStyle(side).minWidth) || 0;
      var toolsWidth = tools.offsetWidth + gap;
      return {
        width: main.clientWidth - mainGap - sideMin - toolsWidth,
        height: space.clientHeight,
        extra: toolsWidth,
      };
    }
    var below = tools ? tools.offsetHeight + gap : 0;
    return { width: space.clientWidth, height: space.clientHeight - below, extra: null };
  }

  function fit() {
    var container = board();
    var space = area();
    var table = mazeTable();
    if (!container || !space || !table) {
      return;
    }
    var tools = space.querySelector("[data-maze-tools]");
    if (tools) {
      tools.hidden = false; // before measuring: they take their room beside or under the maze
    }
    var free = room(space, tools);
    table.style.zoom = "";
    var width = table.offsetWidth;
    var height = table.offsetHeight;
    if (!width || !height || free.width <= 0 || free.height <= 0) {
      return;
    }
    var fitted = Math.min(free.width / width, free.height / height, MAX_FIT);
    var wanted = Math.min(Math.max(fitted * zoom, 0.1), Math.max(MAX_SCALE, fitted));
    table.style.zoom = String(Math.floor(wanted * 1000) / 1000);
    var zoomed = zoom > 1.001;
    if (!zoomed) {
      // Small texts (the edge labels) do not shrink below the browser's minimum font size:
      // measure what was drawn and shrink again until the whole maze is inside its room.
      for (var i = 0; i < 3; i += 1) {
        var drawn = table.getBoundingClientRect();
        var ratio = Math.min(free.width / drawn.width, free.height / drawn.height);
        if (!(ratio < 0.999)) {
          break;
        }
        wanted *= ratio * 0.995;
        table.style.zoom = String(Math.floor(wanted * 1000) / 1000);
      }
    }
    if (free.extra !== null) {
      // The maze's own width; a zoomed maze wider than the room scrolls in all of it.
      var used = Math.min(free.width, Math.ceil(table.getBoundingClientRect().width));
      root.style.setProperty("--maze-w", used + free.extra + "px");
    } else {
      root.style.removeProperty("--maze-w");
    }
    container.classList.toggle("board--zoomed", zoomed);
    if (tools) {
      var fitButton = tools.querySelector("[data-board-fit]");
      if (fitButton) {
        fitButton.setAttribute("aria-pressed", zoomed ? "false" : "true");
      }
    }
  }

  // On a touch screen, a card's legal spots are at least a finger wide: when the fitted maze's
  // cells are narrower than MIN_SPOT px, choosing a card zooms in only as far as that (issue 50:
  // it zoomed so far that the goals left the screen), and the maze is scrolled to keep the three
  // goals and the spot nearest to them (the start's, on the first turn), with the start when it
  // fits too, inside the maze's box; when they cannot all be, the goals stay and the player pans.
  // The maze goes back to its fit once no spot is left (the move made, the card put back). Not
  // remembered as the player's zoom; their own zoom is left alone.
  var MIN_SPOT = 40;
  var GOALS = [[8, -2], [8, 0], [8, 2]]; // games/engine/cards.py GOAL_POSITIONS
  var autoZoomed = false;
  var coarse = window.matchMedia ? window.matchMedia("(pointer: coarse)") : null;

  function spotsOf(container) {
    return container ? container.querySelectorAll(".maze__spot") : [];
  }

  function zoomToSpots() {
    var container = board();
    var spots = spotsOf(container);
    if (!spots.length) {
      if (autoZoomed) {
        autoZoomed = false;
        zoom = readZoom();
        fit();
      }
      return;
    }
    if (!coarse || !coarse.matches || (zoom > 1.001 && !autoZoomed)) {
      return;
    }
    zoom = 1;
    fit();
    var smallest = Infinity;
    spots.forEach(function (spot) {
      var r = spot.getBoundingClientRect();
      smallest = Math.min(smallest, r.width, r.height);
    });
    if (!smallest || smallest >= MIN_SPOT) {
      autoZoomed = false;
      return;
    }
    zoom = Math.min((MIN_SPOT + 0.25) / smallest, MAX_ZOOM);
    autoZoomed = true;
    fit();
    keepInView();
    container.setAttribute("data-spots-centred", ""); // js/learn.js leaves this scroll alone
  }

  function cellAt(container, x, y) {
    return container.querySelector('td[data-x="' + x + '"][data-y="' + y + '"]');
  }

  // The box of ``elements`` in the maze's scrolled content (null for none).
  function contentBox(container, elements) {
    var box = container.getBoundingClientRect();
    var out = null;
    elements.forEach(function (element) {
      if (!element) {
        return;
      }
      var r = element.getBoundingClientRect();
      var left = r.left - box.left + container.scrollLeft;
      var top = r.top - box.top + container.scrollTop;
      out = out || { left: left, top: top, right: left + r.width, bottom: top + r.height };
      out.left = Math.min(out.left, left);
      out.top = Math.min(out.top, top);
      out.right = Math.max(out.right, left + r.width);
      out.bottom = Math.max(out.bottom, top + r.height);
    });
    return out;
  }

  function fits(box, container) {
    return box.right - box.left <= container.clientWidth + 0.5 &&
      box.bottom - box.top <= container.clientHeight + 0.5;
  }

  // Scroll the auto-zoomed maze so that the goals and the spot nearest to them are in its box
  // (and the chosen spot, and the start when all of it fits).
  function keepInView() {
    var container = board();
    var spots = spotsOf(container);
    if (!autoZoomed || !spots.length) {
      return;
    }
    var goals = GOALS.map(function (at) { return cellAt(container, at[0], at[1]); });
    var nearest = null;
    var best = Infinity;
    spots.forEach(function (spot) {
      var cell = spot.closest("td");
      var x = Number(cell.getAttribute("data-x"));
      var y = Number(cell.getAttribute("data-y"));
      var far = Math.abs(8 - x) + Math.abs(y) / 2;
      if (far < best) {
        best = far;
        nearest = cell;
      }
    });
    var chosen = container.querySelector(".maze__spot--chosen, .maze__spot--looked");
    var wanted = goals.concat([nearest, chosen && chosen.closest("td")]);
    var keep = contentBox(container, wanted);
    var withStart = contentBox(container, wanted.concat([cellAt(container, 0, 0)]));
    if (withStart && fits(withStart, container)) {
      keep = withStart;
    }
    var must = contentBox(container, goals) || keep;
    if (!keep) {
      return;
    }
    function place(low, high, mustLow, mustHigh, room) {
      var start = (low + high) / 2 - room / 2;
      // Too wide for the room: the goals stay in it, as near the rest as may be.
      return Math.min(Math.max(start, mustHigh - room), mustLow);
    }
    container.scrollLeft = place(keep.left, keep.right, must.left, must.right, container.clientWidth);
    container.scrollTop = place(keep.top, keep.bottom, must.top, must.bottom, container.clientHeight);
  }

  // Zoom to ``next`` (relative to the fit) keeping the maze's point under (x, y) in place.
  function zoomTo(next, x, y) {
    var container = board();
    if (!container) {
      return;
    }
    next = Math.min(Math.max(next, 1), MAX_ZOOM);
    var box = container.getBoundingClientRect();
    if (x === undefined) {
      x = box.left + box.width / 2;
      y = box.top + box.height / 2;
    }
    var before = scale();
    var pointX = (container.scrollLeft + x - box.left) / before;
    var pointY = (container.scrollTop + y - box.top) / before;
    zoom = next;
    autoZoomed = false; // the player's own zoom from now on
    storeZoom();
    fit();
    var after = scale();
    var moved = container.getBoundingClientRect();
    container.scrollLeft = pointX * after - (x - moved.left);
    container.scrollTop = pointY * after - (y - moved.top);
  }

  document.addEventListener("click", function (event) {
    var control = event.target.closest ? event.target.closest("[data-zoom], [data-board-fit]") : null;
    if (!control) {
      return;
    }
    if (control.hasAttribute("data-board-fit")) {
      zoomTo(1);
    } else {
      zoomTo(zoom * (control.getAttribute("data-zoom") === "in" ? 1.4 : 1 / 1.4));
    }
  });

  // Ctrl + wheel, and a touchpad's pinch (which the browser sends as Ctrl + wheel).
  document.addEventListener("wheel", function (event) {
    if (!(event.ctrlKey || event.metaKey) || !event.target.closest || !event.target.closest("#board")) {
      return;
    }
    event.preventDefault();
    zoomTo(zoom * Math.exp(-event.deltaY * 0.0025), event.clientX, event.clientY);
  }, { passive: false });

  document.addEventListener("keydown", function (event) {
    if (!event.target.closest || !event.target.closest("#board") || event.ctrlKey || event.altKey || event.metaKey) {
      return;
    }
    if (event.key === "+" || event.key === "=") {
      zoomTo(zoom * 1.4);
    } else if (event.key === "-" || event.key === "_") {
      zoomTo(zoom / 1.4);
    } else if (event.key === "0") {
      zoomTo(1);
    } else {
      return;
    }
    event.preventDefault();
  });

  // Drag with the mouse to pan a zoomed maze; a drag is not a click on what it started on.
  var drag = null;
  var swallowClick = false;

  document.addEventListener("pointerdown", function (event) {
    var container = event.target.closest ? event.target.closest("#board") : null;
    if (!container || event.pointerType === "touch" || event.button !== 0 || zoom <= 1.001) {
      return;
    }
    drag = { x: event.clientX, y: event.clientY, left: container.scrollLeft, top: container.scrollTop, moved: false };
  });

  document.addEventListener("pointermove", function (event) {
    var container = board();
    if (!drag || !container) {
      return;
    }
    var dx = event.clientX - drag.x;
    var dy = event.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 5) {
      drag.moved = true;
      container.classList.add("board--dragging");
    }
    if (drag.moved) {
      container.scrollLeft = drag.left - dx;
      container.scrollTop = drag.top - dy;
    }
  });

  document.addEventListener("pointerup", function () {
    var container = board();
    if (drag && drag.moved) {
      swallowClick = true;
      setTimeout(function () {
        swallowClick = false;
      }, 0);
    }
    if (container) {
      container.classList.remove("board--dragging");
    }
    drag = null;
  });

  document.addEventListener("click", function (event) {
    if (swallowClick) {
      swallowClick = false;
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);

  // Two fingers pinch the maze (the board's touch-action leaves pinching to this script).
  var pinch = null;

  function spread(touches) {
    var dx = touches[0].clientX - touches[1].clientX;
    var dy = touches[0].clientY - touches[1].clientY;
    return Math.sqrt(dx * dx + dy * dy);
  }

  document.addEventListener("touchstart", function (event) {
    if (event.touches.length === 2 && event.target.closest && event.target.closest("#board")) {
      pinch = { distance: spread(event.touches) || 1, zoom: zoom };
    }
  }, { passive: true });

  document.addEventListener("touchmove", function (event) {
    if (!pinch || event.touches.length !== 2) {
      return;
    }
    event.preventDefault();
    var x = (event.touches[0].clientX + event.touches[1].clientX) / 2;
    var y = (event.touches[0].clientY + event.touches[1].clientY) / 2;
    zoomTo(pinch.zoom * spread(event.touches) / pinch.distance, x, y);
  }, { passive: false });

  document.addEventListener("touchend", function (event) {
    if (event.touches.length < 2) {
      pinch = null;
    }
  }, { passive: true });

  // -- 3. Swaps: keep the maze's zoom and place; focus on Confirm after picking a position ------

  document.addEventListener("htmx:beforeSwap", function () {
    var container = board();
    saved = container ? { left: container.scrollLeft, top: container.scrollTop } : null;
  });

  // Fitted as soon as the new play area is in the page, before the browser paints it: a maze
  // drawn unfitted and fitted once htmx settles moved the controls under the pointer.
  function swapped() {
    layout();
    var container = board();
    if (container && saved) {
      container.scrollLeft = saved.left;
      container.scrollTop = saved.top;
    }
    zoomToSpots();
  }
  // -- The last round's result: closed by the player, it stays closed on this device ----------
  var CLOSED_KEY = "saboteur-round-results-closed";

  function closedResults() {
    try {
      return JSON.parse(window.localStorage.getItem(CLOSED_KEY) || "[]");
    } catch (error) {
      return [];
    }
  }

  function hideClosedResults() {
    var closed = closedResults();
    document.querySelectorAll("#play [data-round-toast]").forEach(function (toast) {
      toast.hidden = closed.indexOf(toast.getAttribute("data-round-toast")) !== -1;
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-round-toast-close]") : null;
    if (!button) {
      return;
    }
    var toast = button.closest("[data-round-toast]");
    var closed = closedResults().concat([toast.getAttribute("data-round-toast")]).slice(-50);
    try {
      window.localStorage.setItem(CLOSED_KEY, JSON.stringify(closed));
    } catch (error) {
      // private mode: closed until the next refresh of the play area
    }
    toast.hidden = true;
  });

  // htmx tells afterSwap and afterSettle on every part a response put in the page (a live
  // update sends a dozen: cells, log lines, chips), each time with the response's one detail
  // object, and every part is in place before the first is told. What measures the table (each
  // fit makes the browser lay the page out several times) runs once per response: once per part,
  // a live update laid a phone's page out some seventy times.
  function oncePerResponse(handler) {
    var done = new WeakSet();
    return function (event) {
      var detail = event.detail;
      if (detail) {
        if (done.has(detail)) {
          return;
        }
        done.add(detail);
      }
      handler(event);
    };
  }

  document.addEventListener("htmx:afterSwap", oncePerResponse(function () {
    hideClosedResults();
    swapped();
  }));
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    markPassed(document.getElementById("last-act")); // a chip sent again has lost its mark
    if (event.target && event.target.id === "play") {
      hideClosedResults();
      swapped();
    }
  });

  document.addEventListener("htmx:afterSettle", oncePerResponse(function (event) {
    layout();
    var trigger = event.detail && event.detail.requestConfig && event.detail.requestConfig.elt;
    if (trigger && trigger.classList && trigger.classList.contains("maze__spot")) {
      var confirm = document.querySelector('#play [data-testid="confirm-move"]');
      if (confirm) {
        confirm.focus({ preventScroll: true });
      }
    }
    quietTips();
    landLastMove();
  }));

  // -- 4. Tips that close, the newest move, the chat box ----------------------------------------

  var quietCard = null;

  function cardOf(item) {
    var card = item.querySelector("[data-card]");
    return card ? card.getAttribute("data-card") : null;
  }

  function quietTips() {
    if (!quietCard) {
      return;
    }
    document.querySelectorAll("#bar .hand > li").forEach(function (item) {
      if (cardOf(item) === quietCard) {
        item.classList.add("tip-off");
      }
    });
  }

  document.addEventListener("click", function (event) {
    var item = event.target.closest ? event.target.closest(".hand > li") : null;
    if (item) {
      quietCard = cardOf(item);
      quietTips();
    }
  }, true);

  document.addEventListener("pointerover", function (event) {
    if (!quietCard || !event.target.closest) {
      return;
    }
    var item = event.target.closest(".hand > li");
    if (!item || cardOf(item) !== quietCard) {
      quietCard = null;
      document.querySelectorAll(".hand > li.tip-off").forEach(function (tipped) {
        tipped.classList.remove("tip-off");
      });
    }
  });

  var landed = null;

  var still = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

  function freshen(element, css) {
    element.classList.add(css);
    setTimeout(function () {
      element.classList.remove(css);
    }, 1600);
  }

  // Every kind of move is seen: a card flies from the mover's seat to what it was played on (a
  // cell of the maze, a goal, a player's seat), which then lights up. Not on the page's first
  // load (nothing moved while it was open), nor under prefers-reduced-motion.
  function landLastMove() {
    var container = board();
    var act = document.getElementById("last-act"); // the latest move's data: a part of its own
    if (!container || !act) {
      return;
    }
    var move = act.getAttribute("data-last-move");
    var passed = markPassed(act); // after every swap: a chip sent again has lost its mark
    if (move !== landed && move !== "0") {
      var cell = container.querySelector(".maze__cell--last");
      var at = act.getAttribute("data-act-seat");
      // A pass lights up the mover's own chip (markPassed): every move is seen.
      var seat = at ? document.querySelector('#play .seat[data-seat="' + at + '"]') : passed;
      if (cell) {
        freshen(cell, "maze__cell--fresh");
      }
      if (seat) {
        freshen(seat, "seat--fresh");
      }
      if (landed !== null && !act.hasAttribute("data-act-passed")) {
        var card = act.getAttribute("data-act-card") || "";
        fly(act.getAttribute("data-act-from"), seat || cell, card);
        if (seat && /^swap-/.test(card)) {
          // Hats or hands change places: a second card flies back to the mover.
          fly(at, document.querySelector('#play .seat[data-seat="' + act.getAttribute("data-act-from") + '"]'), card);
        }
      }
    }
    landed = move;
  }

  // The latest move was a pass: its mover's chip says so ("Passed", in the page's language, from
  // the latest move's data) and is outlined, until the next move. Drawn here, after every swap:
  // the chip itself is not sent again for it (the live updates' budget, tests/web/test_live_parts.py).
  function markPassed(act) {
    document.querySelectorAll("#play .seat--passed").forEach(function (chip) {
      chip.classList.remove("seat--passed");
    });
    document.querySelectorAll("#play .seat__badge--passed").forEach(function (badge) {
      badge.remove();
    });
    var word = act ? act.getAttribute("data-act-passed") : null;
    var chip = word ? document.querySelector('#play .seat[data-seat="' + act.getAttribute("data-act-from") + '"]') : null;
    if (!chip) {
      return null;
    }
    var badge = document.createElement("span");
    badge.className = "seat__badge seat__badge--passed";
    badge.setAttribute("data-testid", "passed");
    badge.textContent = word;
    var facts = chip.querySelector(".seat__facts");
    chip.insertBefore(badge, facts);
    chip.classList.add("seat--passed");
    return chip;
  }

  function fly(from, target, card) {
    var mover = from ? document.querySelector('#play .seat[data-seat="' + from + '"]') : null;
    if (!mover || !target || (still && still.matches) || !document.body.animate) {
      return;
    }
    var start = mover.getBoundingClientRect();
    var end = target.getBoundingClientRect();
    var flying = document.createElement("div");
    flying.className = "fly-card";
    flying.setAttribute("aria-hidden", "true");
    flying.setAttribute("data-card", card || "");
    var drawn = target.querySelector && target.querySelector("svg.card-svg");
    if (drawn && target.classList.contains("maze__cell")) {
      flying.appendChild(drawn.cloneNode(true)); // the path card that lands there
    }
    document.body.appendChild(flying);
    var x0 = start.left + start.width / 2 - 18, y0 = start.top + start.height / 2 - 27;
    var x1 = end.left + end.width / 2 - 18, y1 = end.top + end.height / 2 - 27;
    var animation = flying.animate(
      [
        { transform: "translate(" + x0 + "px, " + y0 + "px) scale(0.6)", opacity: 0.3 },
        { transform: "translate(" + x1 + "px, " + y1 + "px) scale(1)", opacity: 1 },
      ],
      { duration: 550, easing: "cubic-bezier(.2,.7,.3,1)" }
    );
    animation.onfinish = function () {
      flying.remove();
    };
  }

  // (On the swap's target: the form that sent the message is replaced by then.)
  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail && event.detail.requestConfig;
    var form = config && config.elt;
    if (form && form.id === "chat-form" && event.detail.xhr && event.detail.xhr.status === 200) {
      var box = document.getElementById("chat-text");
      if (box) {
        box.value = "";
      }
    }
  });

  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(layout, 60);
  });

  // A popover that opens (Pass, the role's help) may change nothing of the layout, but a
  // folded hand that opens does: measure again.
  document.addEventListener("toggle", function (event) {
    if (event.target.closest && event.target.closest("#bar")) {
      layout();
    }
  }, true);

  // Whatever changes the room around the maze (the bar growing for a prompt, the players' strip
  // wrapping, the window) fits it again in the same frame: a ResizeObserver reports before the
  // browser paints. The bar and the strip are replaced by each swap: observe the new ones.
  var watcher = window.ResizeObserver ? new ResizeObserver(function () {
    layout();
  }) : null;
  var watched = [];

  function watchRoom() {
    if (!watcher) {
      return;
    }
    var now = [document.getElementById("bar"), document.querySelector("#play [data-table-main]")];
    if (now[0] === watched[0] && now[1] === watched[1]) {
      return;
    }
    watcher.disconnect();
    now.forEach(function (element) {
      if (element) {
        watcher.observe(element, { box: "border-box" });
      }
    });
    watched = now;
  }

  function start() {
    hideClosedResults();
    layout();
    zoomToSpots();
    landLastMove();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  window.addEventListener("load", layout);
})();

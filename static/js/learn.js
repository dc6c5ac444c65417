// The game page, for newcomers, phones, keyboards and screen readers (issue 13). Runs after
// game.js (both deferred, in order) and only adds behaviour:
// 1. Long press on a card (hand or maze) shows its help, like hover and focus do.
// 2. Arrow keys move the focus between the legal spots of the maze.
// 3. New moves are announced in a polite live region (#announcer, outside the swapped area).
// 4. A zoomed maze (js/game.js) scrolled to the selected card's legal spots, and no sideways
//    jump when the maze grows a column on its west side.
// 5. What a player was seen doing (the ledger, issue 38): their card opens on hover with a mouse
//    too (a tap, a click or Enter open it without this), set under their chip; the ledger's
//    table beside the log stays open across live updates once opened.
// 6. While another player decides, the hand shows what could be played on the maze as it is (the
//    same markup as on the viewer's turn: a live update at their turn need not send it again);
//    it is inert until the turn is theirs.
(function () {
  "use strict";

  var LONG_PRESS_MS = 500;

  function board() {
    return document.getElementById("board");
  }

  // -- 1. Long press ----------------------------------------------------------------------------

  var pressTimer = null;
  var pressed = null;
  var swallowClick = false;

  function toast(text) {
    var box = document.getElementById("help-toast");
    if (!box) {
      return;
    }
    box.textContent = text;
    box.hidden = !text;
  }

  function clearPressed() {
    if (pressed) {
      pressed.classList.remove("is-pressed");
      pressed = null;
    }
  }

  document.addEventListener("touchstart", function (event) {
    var target = event.target.closest ? event.target.closest(".hand > li, td[title]") : null;
    clearTimeout(pressTimer);
    if (!target) {
      clearPressed();
      toast("");
      return;
    }
    pressTimer = setTimeout(function () {
      swallowClick = true;
      clearPressed();
      if (target.matches("td[title]")) {
        toast(target.getAttribute("title"));
      } else {
        pressed = target;
        target.classList.add("is-pressed");
        var tip = target.querySelector(".card-tip");
        if (tip && window.matchMedia("(max-width: 30rem)").matches) {
          toast(tip.textContent.trim());
        }
      }
    }, LONG_PRESS_MS);
  }, { passive: true });

  ["touchend", "touchmove", "touchcancel"].forEach(function (name) {
    document.addEventListener(name, function () {
      clearTimeout(pressTimer);
    }, { passive: true });
  });

  // A greyed card says why in full when tapped or clicked: its reason under it is cut short on a
  // small screen ("Nobody has a broken..."). Any other click closes what it said.
  document.addEventListener("click", function (event) {
    var box = document.getElementById("help-toast");
    var item = event.target.closest ? event.target.closest("#bar .hand > li") : null;
    var reason = item && item.querySelector(".hand-card--idle") ? item.querySelector(".hand-card__reason") : null;
    if (reason) {
      var label = item.querySelector(".hand-card__label");
      toast((label ? label.textContent.trim() + ": " : "") + reason.textContent.trim());
      if (box) {
        box.setAttribute("data-reason", "");
      }
    } else if (box && box.hasAttribute("data-reason")) {
      box.removeAttribute("data-reason");
      toast("");
    }
  });

  // The click that ends a long press only shows the help; it does not choose the card.
  document.addEventListener("click", function (event) {
    if (swallowClick) {
      swallowClick = false;
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);

  // -- 2. Arrow keys between legal spots --------------------------------------------------------

  var STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  function spotAt(element) {
    var cell = element.closest("td");
    return { x: Number(cell.getAttribute("data-x")), y: Number(cell.getAttribute("data-y")) };
  }

  document.addEventListener("keydown", function (event) {
    // Links that act as toggle buttons (the hand's cards) answer the space bar like buttons.
    if (event.key === " " && event.target.matches && event.target.matches('a[role="button"]')) {
      event.preventDefault();
      event.target.click();
      return;
    }
    var step = STEPS[event.key];
    if (!step || !event.target.closest) {
      return;
    }
    // With a card chosen, arrows walk the legal spots; otherwise the cards of the maze, each
    // showing its help while focused (from the maze itself, start at the start card).
    var current = event.target.closest(".maze__spot");
    var selector = "#play .maze__spot";
    if (!current) {
      current = event.target.closest("#play td[title]");
      selector = '#play td[title][tabindex="-1"]';
      if (!current && event.target.matches("#board")) {
        if (pan(event.target, step)) {
          event.preventDefault();
          return;
        }
        var start = document.querySelector('#play td[data-x="0"][data-y="0"]');
        if (start) {
          event.preventDefault();
          start.focus();
        }
        return;
      }
    }
    if (!current) {
      return;
    }
    var here = spotAt(current);
    var best = null;
    var bestScore = Infinity;
    document.querySelectorAll(selector).forEach(function (spot) {
      if (spot === current) {
        return;
      }
      var there = spotAt(spot);
      var dx = there.x - here.x;
      var dy = there.y - here.y;
      var along = dx * step[0] + dy * step[1];
      if (along <= 0) {
        return;
      }
      var across = Math.abs(dx * step[1]) + Math.abs(dy * step[0]);
      var score = along + 2 * across;
      if (score < bestScore) {
        bestScore = score;
        best = spot;
      }
    });
    if (best) {
      event.preventDefault();
      best.focus();
      best.scrollIntoView({ block: "nearest", inline: "nearest" });
    } else if (pan(document.getElementById("board"), step)) {
      event.preventDefault(); // nothing further that way: a zoomed maze pans that way instead
    }
  });

  // A zoomed maze (js/game.js) pans by a quarter of its view per arrow key, both ways.
  function pan(board, step) {
    if (!board || !board.classList.contains("board--zoomed")) {
      return false;
    }
    board.scrollBy({
      left: step[0] * board.clientWidth * 0.25,
      top: step[1] * board.clientHeight * 0.25,
    });
    return true;
  }

  // -- 3. Announcing new moves ------------------------------------------------------------------

  var lastEntry = null;

  function entries() {
    return Array.prototype.map.call(document.querySelectorAll("#play .log li"), function (li) {
      return li.textContent.trim();
    });
  }

  // The log lists the newest entry first: announce every entry above the one seen last, oldest
  // first ("Ann played ... You drew ...").
  function announce() {
    var all = entries();
    var region = document.getElementById("announcer");
    if (region && lastEntry !== null && all.length && all[0] !== lastEntry) {
      var seen = lastEntry ? all.indexOf(lastEntry) : all.length;
      var fresh = all.slice(0, Math.min(seen < 0 ? all.length : seen, 5)).reverse();
      region.textContent = fresh.join(" ");
    }
    lastEntry = all.length ? all[0] : "";
  }

  // -- 4. Scroll a zoomed maze to the legal spots, keep the maze still --------------------------

  function visibleIn(container, element) {
    var box = container.getBoundingClientRect();
    var item = element.getBoundingClientRect();
    return item.left >= box.left && item.right <= box.right &&
      item.top >= box.top && item.bottom <= box.bottom;
  }

  function showSpots() {
    var container = board();
    if (!container) {
      return;
    }
    var chosen = container.querySelector(".maze__spot--chosen");
    var spots = container.querySelectorAll(".maze__spot");
    if (!spots.length) {
      return;
    }
    var anyVisible = Array.prototype.some.call(spots, function (spot) {
      return visibleIn(container, spot);
    });
    var target = chosen || (anyVisible ? null : spots[0]);
    if (target && !visibleIn(container, target)) {
      target.scrollIntoView({ block: "center", inline: "center" });
    }
    // The bottom of the screen holds the decision bar: keep the spot above it.
    var spot = chosen || target || spots[0];
    var box = spot.getBoundingClientRect();
    var bar = document.getElementById("bar");
    var limit = bar ? bar.getBoundingClientRect().top : window.innerHeight;
    if (box.bottom > limit || box.top < 0) {
      window.scrollBy(0, box.top - window.innerHeight * 0.2);
    }
  }

  var westEdge = null;

  function firstColumn() {
    var cell = document.querySelector("#board .maze td");
    return cell ? Number(cell.getAttribute("data-x")) : null;
  }

  document.addEventListener("htmx:beforeSwap", function () {
    westEdge = firstColumn();
  });

  // Keyboard players go on where the choice left them: from a card of the hand to its first
  // legal spot (or its first choice), from a chosen target to its Confirm button.
  function moveFocus(trigger) {
    if (!trigger || !trigger.matches) {
      return;
    }
    var next = null;
    if (trigger.matches("a.hand-card")) {
      next = document.querySelector("#play .maze__spot") ||
        document.querySelector("#bar .selected-card .button");
    } else if (trigger.matches('[data-testid="choose-target"]')) {
      next = document.querySelector('#play [data-testid="confirm-action"]');
    }
    if (next) {
      next.focus({ preventScroll: true });
    }
  }

  // After a move the focus goes back to the hand (it fell to the page's top, 24 Tabs away): to
  // its first card when the decision is still the player's, else to the bar that holds it; when
  // the turn comes back, from there (or from nowhere) to the hand's first card. Nothing else
  // that has the focus (the chat's box, the maze) loses it to a live update.
  var mine = null;

  function handCard() {
    var hand = document.querySelector("#bar ul.bar__hand");
    return hand && !hand.inert ? hand.querySelector("a.hand-card, .hand-card[tabindex='0']") : null;
  }

  function parked() {
    var active = document.activeElement;
    return !active || active === document.body || active.id === "bar";
  }

  function backToHand(moved) {
    handWaits();
    var now = !!document.querySelector("#bar-head.bar__head--mine");
    var card = handCard();
    if (moved || (now && !mine && parked())) {
      var target = card || (moved ? document.getElementById("bar") : null);
      if (target) {
        target.focus({ preventScroll: true });
      }
    }
    mine = now;
  }

  function moveMade(config) {
    return !!config && config.verb === "post" && /\/move\/?$/.test(config.path || "");
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var trigger = event.detail && event.detail.requestConfig && event.detail.requestConfig.elt;
    backToHand(moveMade(event.detail && event.detail.requestConfig));
    moveFocus(trigger);
    // game.js has put back the scroll position; a column added (or dropped) on the west side
    // would shift the whole maze sideways by one cell: move the scroll with it.
    var container = board();
    var edge = firstColumn();
    var centred = container && container.hasAttribute("data-spots-centred"); // by js/game.js
    if (container && !centred && westEdge !== null && edge !== null && edge !== westEdge) {
      var cell = container.querySelector(".maze td");
      container.scrollLeft += (westEdge - edge) * cell.getBoundingClientRect().width;
    }
    showSpots();
    announce();
  });

  document.addEventListener("DOMContentLoaded", function () {
    mine = !!document.querySelector("#bar-head.bar__head--mine");
    var all = entries();
    lastEntry = all.length ? all[0] : "";
    showSpots();
  });
  // -- 5. The ledger -----------------------------------------------------------------------------

  function placeCard(pop) {
    var seat = document.getElementById("seat-" + pop.getAttribute("data-seat"));
    if (!seat) {
      return;
    }
    var chip = seat.getBoundingClientRect();
    var width = pop.offsetWidth;
    var height = pop.offsetHeight;
    var top = chip.bottom + 6;
    if (top + height > window.innerHeight - 8) {
      top = Math.max(8, chip.top - height - 6);
    }
    pop.setAttribute("data-placed", "");
    pop.style.left = Math.max(8, Math.min(chip.left, window.innerWidth - width - 8)) + "px";
    pop.style.top = top + "px";
  }

  document.addEventListener("toggle", function (event) {
    var target = event.target;
    if (target.classList && target.classList.contains("did-pop") && event.newState === "open") {
      placeCard(target);
    }
    if (target.id === "ledger") {
      try {
        window.localStorage.setItem("ledger-open", target.open ? "1" : "");
      } catch (error) { /* storage refused: it opens closed */ }
    }
  }, true);

  var hoverable = window.matchMedia ? window.matchMedia("(hover: hover) and (pointer: fine)") : null;
  var hoverTimer = null;
  var hovered = null; // the card opened by hovering (closed when the mouse leaves its chip)

  function cardOf(seat) {
    return seat ? document.getElementById("did-" + seat.getAttribute("data-seat")) : null;
  }

  // The chip the mouse crossed into (mouseover) or out of (mouseout), or null when it moved
  // within one chip.
  function chipCrossed(event) {
    var chip = event.target.closest ? event.target.closest("#seats .seat") : null;
    var other = event.relatedTarget;
    var beyond = other && other.closest ? other.closest("#seats .seat") : null;
    return chip && chip !== beyond ? chip : null;
  }

  document.addEventListener("mouseover", function (event) {
    var seat = hoverable && hoverable.matches ? chipCrossed(event) : null;
    if (!seat) {
      return;
    }
    clearTimeout(hoverTimer);
    hoverTimer = setTimeout(function () {
      var pop = cardOf(seat);
      if (pop && pop.showPopover && !pop.matches(":popover-open")) {
        pop.showPopover();
        hovered = pop;
      }
    }, 250);
  });

  document.addEventListener("mouseout", function (event) {
    if (!chipCrossed(event)) {
      return;
    }
    clearTimeout(hoverTimer);
    if (hovered && hovered.matches(":popover-open")) {
      hovered.hidePopover();
    }
    hovered = null;
  });

  // A click on the chip after hovering keeps the card open (the click would toggle it closed).
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest(".seat__open") : null;
    if (button && hovered && cardOf(button.closest(".seat")) === hovered) {
      event.preventDefault();
      hovered = null;
    }
  }, true);

  function keepLedgerOpen() {
    var ledger = document.getElementById("ledger");
    var open = false;
    try {
      open = window.localStorage.getItem("ledger-open") === "1";
    } catch (error) { /* storage refused */ }
    if (ledger && open && !ledger.open) {
      ledger.open = true;
    }
  }

  // htmx:load is told on every element htmx puts in the page, out-of-band swaps included, once it
  // is in the page (an out-of-band swap's other events go to the element it replaced).
  document.addEventListener("htmx:load", keepLedgerOpen);
  document.addEventListener("DOMContentLoaded", keepLedgerOpen);
  // -- 6. The hand waits for the viewer's turn ---------------------------------------------------

  function handWaits() {
    var hand = document.querySelector("#bar ul.bar__hand");
    if (hand) {
      var waiting = !document.querySelector("#bar-head.bar__head--mine");
      if (hand.inert !== waiting) {
        hand.inert = waiting;
      }
    }
  }

  document.addEventListener("htmx:load", handWaits);
  document.addEventListener("DOMContentLoaded", handWaits);
})();

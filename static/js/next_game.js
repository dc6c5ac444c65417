// The offers after a move (templates/games/_after_move.html): the next game waiting for the
// player's decision and the offer of push notifications.
// 1. They sit in the flow of the table's side column ([data-offers-slot] in the play area:
//    beside the maze on wide screens, below the maze and the bar on phones), never over the
//    game (issue 50). The server renders them outside the play area (#offers-home), where a
//    move's answer swaps them out of band; they are moved into the slot, which htmx keeps across
//    the play area's swaps (hx-preserve).
// 2. Answered, an offer goes for good: "Not now" on the next game is remembered on this device
//    for that game (a later answer offering it again leaves it closed).
// 3. After a move, go on to the next game by itself when the player chose so in their profile
//    (the server marks the offer with data-go).
(function () {
  "use strict";
  var CLOSED_KEY = "saboteur-next-games-closed";
  var OFFERS = ["next-game", "push-prompt"];

  function closedGames() {
    try {
      return JSON.parse(window.localStorage.getItem(CLOSED_KEY) || "[]");
    } catch (error) {
      return [];
    }
  }

  function forgetClosed() {
    var offer = document.querySelector("#next-game [data-next-game]");
    if (offer && closedGames().indexOf(offer.getAttribute("data-next-game")) !== -1) {
      offer.parentNode.replaceChildren();
    }
  }

  function place() {
    var slot = document.querySelector("#play [data-offers-slot]") || document.getElementById("offers-home");
    if (!slot) {
      return;
    }
    OFFERS.forEach(function (id) {
      var offer = document.getElementById(id);
      if (offer && offer.parentNode !== slot) {
        slot.appendChild(offer);
      }
    });
    forgetClosed();
  }

  function goOn() {
    var offer = document.querySelector("#next-game [data-go]");
    if (offer) {
      window.location.assign(offer.getAttribute("data-go"));
    }
  }

  document.addEventListener("htmx:oobAfterSwap", place);
  document.addEventListener("htmx:afterSwap", place);
  document.addEventListener("htmx:afterSettle", function () {
    place();
    goOn();
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", place);
  } else {
    place();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-next-game-close]") : null;
    if (!button) {
      return;
    }
    var offer = button.closest("[data-next-game]");
    if (offer) {
      var closed = closedGames().concat([offer.getAttribute("data-next-game")]).slice(-50);
      try {
        window.localStorage.setItem(CLOSED_KEY, JSON.stringify(closed));
      } catch (error) {
        // private mode: closed until the next answer brings it again
      }
    }
    button.closest("#next-game").replaceChildren();
  });
})();

// After a move: go on to the next game waiting for the player's decision, when they chose so in
// their profile (the server marks the offer with data-go; templates/games/_after_move.html).
(function () {
  "use strict";
  function goOn() {
    var offer = document.querySelector("#next-game [data-go]");
    if (offer) {
      window.location.assign(offer.getAttribute("data-go"));
    }
  }
  document.addEventListener("htmx:afterSettle", goOn);

  // "Not now": the offer floats over the page's top corner (its header links): closed, it goes
  // until the next answer brings it again.
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-next-game-close]") : null;
    if (button) {
      button.closest("#next-game").replaceChildren();
    }
  });
})();

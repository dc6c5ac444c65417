// The game page's only script: what htmx cannot do by itself.
// 1. Keep the maze's scroll position when htmx replaces the play area (a phone shows a part of
//    the maze; jumping back to its corner after every tap loses the player's place).
// 2. After a player picks a position, move the focus to its Confirm button (keyboard users,
//    and it scrolls the button into view on a phone). Polls never move the focus.
(function () {
  "use strict";
  var saved = null;

  document.addEventListener("htmx:beforeSwap", function () {
    var board = document.querySelector("#play .board");
    saved = board ? { left: board.scrollLeft, top: board.scrollTop } : null;
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    var board = document.querySelector("#play .board");
    if (board && saved) {
      board.scrollLeft = saved.left;
      board.scrollTop = saved.top;
    }
    var trigger = event.detail && event.detail.requestConfig && event.detail.requestConfig.elt;
    if (trigger && trigger.classList && trigger.classList.contains("maze__spot")) {
      var confirm = document.querySelector('#play [data-testid="confirm-move"]');
      if (confirm) {
        confirm.focus();
      }
    }
  });
})();

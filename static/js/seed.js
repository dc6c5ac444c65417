/* A player's own seed for the deals (docs/fairness.md): made here, by their browser.
 *
 * On the lobby, a seat without a seed gets one at once (32 random hex digits from the browser's
 * own generator, saved in the background: the site never chose it); "New random seed" makes
 * another, saved with the form's button. Without JavaScript the player may type one, or the
 * site draws one when the game starts. */
(function () {
  "use strict";

  function newSeed() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
  }

  function wire(form) {
    var input = form.querySelector('input[name="seed"]');
    var button = form.querySelector("[data-new-seed]");
    if (!input || !window.crypto || !crypto.getRandomValues || form.hasAttribute("data-wired")) return;
    form.setAttribute("data-wired", "");
    if (button) {
      button.hidden = false;
      button.addEventListener("click", function () { input.value = newSeed(); input.focus(); });
    }
    if (form.hasAttribute("data-empty") && !input.value) {
      input.value = newSeed();
      form.removeAttribute("data-empty");
      fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin" })
        .then(function (response) {
          if (response.ok) form.setAttribute("data-saved", "");
        })
        .catch(function () { /* the site draws one at the start */ });
    }
  }

  function start(root) {
    if (root.matches && root.matches("form[data-own-seed]")) wire(root);
    root.querySelectorAll("form[data-own-seed]").forEach(wire);
  }
  // The lobby's live updates swap its play area: wire the new form too.
  document.addEventListener("htmx:load", function (event) { start(event.detail.elt); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { start(document); });
  else start(document);
})();

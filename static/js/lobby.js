// The lobby's create form: choosing Saboteur 2 disables the base-only variants (the server
// refuses them anyway; this only saves a round trip and shows which options apply).
(function () {
  "use strict";
  function update(form) {
    var ruleset = form.querySelector('select[name="ruleset"]');
    if (!ruleset) {
      return;
    }
    var baseOnly = ruleset.value !== "base";
    form.querySelectorAll('input[name="variants"]').forEach(function (box) {
      box.disabled = baseOnly;
      if (baseOnly) {
        box.checked = false;
      }
    });
    var group = form.querySelector('[data-variants]');
    if (group) {
      group.classList.toggle("is-disabled", baseOnly);
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form[data-create-game]").forEach(function (form) {
      update(form);
      form.addEventListener("change", function (event) {
        if (event.target && event.target.name === "ruleset") {
          update(form);
        }
      });
    });
  });
})();

// The replay page: the arrow keys step through the moves (Home/End: first/last), and moving the
// slider shows that move. Plain links and a GET form work without this script.
(function () {
  "use strict";
  var keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var target = event.target;
    var tag = target && target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable)) {
      return; // the slider and text fields keep their own keys
    }
    var which = keys[event.key];
    var link = which && document.querySelector('[data-replay="' + which + '"]');
    if (link) {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });

  document.addEventListener("change", function (event) {
    if (event.target && event.target.id === "replay-step") {
      event.target.form.submit();
    }
  });
})();

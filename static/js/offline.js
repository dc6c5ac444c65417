// The page the service worker shows when a page cannot load (templates/pwa/offline.html, cached;
// templates/pwa/sw.js). It is shown at the address of the page that failed, so reloading asks for
// that page again.
// - The browser says it is offline (navigator.onLine false): "You are offline".
// - The browser is online but the site did not answer (the server restarting or stopped):
//   "The site is not answering".
// While online it asks the site every few seconds (a HEAD request, which the service worker leaves
// to the network) and, as soon as the site answers anything at all, reloads the page; offline, it
// waits for the browser to be back online, then checks at once. It never reloads over another
// navigation the player has begun. The body's data-state says "offline", "not-answering" or
// "reloading" (for tests and the curious).
// Opened at its own address (/offline/, which the service worker caches) it stays as it is: there
// is no failed page to reload.
(function () {
  "use strict";
  var script = document.currentScript;
  var own = script && script.dataset.offlineUrl;
  if (own && window.location.pathname === own) {
    return;
  }
  var RETRY_MS = 5000;
  var timer = null;
  var checking = false;
  var leaving = false; // another navigation has begun: a reload would cancel it

  function panel(name) {
    return document.querySelector('[data-testid="' + name + '"]');
  }

  function show(state) {
    document.body.dataset.state = state;
    var offline = panel("offline");
    var silent = panel("not-answering");
    if (!offline || !silent || state === "reloading") {
      return;
    }
    var shown = state === "offline" ? offline : silent;
    offline.hidden = shown !== offline;
    silent.hidden = shown !== silent;
    if (shown.dataset.title) {
      document.title = shown.dataset.title;
    }
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(check, RETRY_MS);
  }

  function check() {
    if (checking) {
      return;
    }
    if (navigator.onLine === false) {
      // No request while the browser knows it is offline (it would only fail); going back
      // online checks at once ("online" below), this only in case that event is missed.
      show("offline");
      schedule();
      return;
    }
    checking = true;
    clearTimeout(timer);
    fetch(window.location.href, {
      method: "HEAD",
      cache: "no-store",
      credentials: "same-origin",
      redirect: "manual",
    }).then(function () {
      // Any answer, even an error page or a redirect: the site is back, load the page itself
      // (unless the player is already going elsewhere).
      if (!leaving) {
        show("reloading");
        window.location.reload();
      }
    }, function () {
      show(navigator.onLine === false ? "offline" : "not-answering");
      schedule();
    }).finally(function () {
      checking = false;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-try-again]").forEach(function (link) {
      link.setAttribute("href", window.location.href);
    });
    show(navigator.onLine === false ? "offline" : "not-answering");
    window.addEventListener("beforeunload", function () {
      leaving = true;
      clearTimeout(timer);
    });
    window.addEventListener("online", check);
    window.addEventListener("offline", function () {
      show("offline");
    });
    check();
  });
})();

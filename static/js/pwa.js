// On every page: the installable site and its notifications.
// 1. Register the service worker (/sw.js: it caches static files and the offline page only).
// 2. Show how many games wait for the player's decision on the app's icon (the header's count).
// 3. Turn push notifications on in this browser: the profile's button and the offer after a
//    move ([data-push] boxes; the subscription goes to the server, which keeps it per device).
(function () {
  "use strict";
  var script = document.currentScript;
  var workerUrl = (script && script.dataset.worker) || "/sw.js";
  var supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  var DISMISSED = "saboteur-push-offer-dismissed";

  if ("serviceWorker" in navigator) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register(workerUrl, { scope: "/" }).catch(function () {});
    });
  }

  function showBadge() {
    if (!("setAppBadge" in navigator)) {
      return;
    }
    var badge = document.querySelector("#my-games .badge");
    var count = badge ? parseInt(badge.textContent, 10) || 0 : 0;
    (count ? navigator.setAppBadge(count) : navigator.clearAppBadge()).catch(function () {});
  }

  function keyBytes(base64) {
    var padded = (base64 + "===".slice((base64.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(padded);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) {
      bytes[i] = raw.charCodeAt(i);
    }
    return bytes;
  }

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (error) {
      return "";
    }
  }

  function say(box, text) {
    var state = box.querySelector("[data-push-state]");
    if (state) {
      state.textContent = text || "";
    }
  }

  async function turnOn(box) {
    var permission = await Notification.requestPermission();
    if (permission !== "granted") {
      say(box, box.dataset.msgBlocked);
      return;
    }
    await navigator.serviceWorker.register(workerUrl, { scope: "/" });
    var registration = await navigator.serviceWorker.ready;
    var key = keyBytes(box.dataset.pushKey);
    var subscription = await registration.pushManager.getSubscription();
    if (subscription) {
      var current = subscription.options && subscription.options.applicationServerKey;
      var same = current && new Uint8Array(current).join() === key.join();
      if (!same) {
        await subscription.unsubscribe();
        subscription = null;
      }
    }
    if (!subscription) {
      subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: key,
      });
    }
    var response = await fetch(box.dataset.pushUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(subscription.toJSON()),
    });
    if (!response.ok) {
      var answer = await response.json().catch(function () { return {}; });
      say(box, answer.error || box.dataset.msgFailed);
      return;
    }
    say(box, box.dataset.msgOn);
    var button = box.querySelector("[data-push-enable]");
    if (button) {
      button.hidden = true;
    }
    if (box.hasAttribute("data-push-prompt")) {
      // Answered, the game page's offer goes for good; the game page's live region says so.
      var region = document.getElementById("announcer");
      if (region) {
        region.textContent = box.dataset.msgOn;
      }
      box.hidden = true;
    }
    if (box.hasAttribute("data-push-reload")) {
      window.location.reload();  // the profile lists the new device
    }
  }

  function setUp(root) {
    var boxes = (root || document).querySelectorAll("[data-push]:not([data-push-ready])");
    boxes.forEach(function (box) {
      box.setAttribute("data-push-ready", "");
      var offer = box.hasAttribute("data-push-prompt");
      if (!supported) {
        if (!offer) {
          say(box, box.dataset.msgUnsupported);
        }
        return;
      }
      if (offer) {
        // Only to someone who has not answered yet, and not after "Not now".
        if (Notification.permission !== "default" || window.localStorage.getItem(DISMISSED)) {
          return;
        }
        box.hidden = false;
      } else if (Notification.permission === "denied") {
        say(box, box.dataset.msgBlocked);
      }
      var button = box.querySelector("[data-push-enable]");
      if (button) {
        button.hidden = false;
        button.addEventListener("click", function () {
          button.disabled = true;
          turnOn(box).catch(function () {
            say(box, box.dataset.msgFailed);
          }).finally(function () {
            button.disabled = false;
          });
        });
      }
      var dismiss = box.querySelector("[data-push-dismiss]");
      if (dismiss) {
        dismiss.addEventListener("click", function () {
          window.localStorage.setItem(DISMISSED, "1");
          box.hidden = true;
        });
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    showBadge();
    setUp(document);
  });
  document.addEventListener("htmx:afterSettle", function () {
    showBadge();
    setUp(document);
  });
})();

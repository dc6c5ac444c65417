{% autoescape off %}// The service worker of the site (saboteur_site/pwa.py serves it from /sw.js).
// The cache holds the static assets and the offline page, nothing else: game pages, their parts
// and polls always go to the network (a player's hand or role never lands in a cache), and a page
// that cannot load shows the offline page, at the failed page's address: the page itself tells
// "you are offline" from "the site is not answering" (navigator.onLine) and reloads by itself
// when the site answers again (static/js/offline.js). Push messages (games/outbox/push.py) become
// notifications; their actions open the one-tap confirmation page, which never moves by itself.
"use strict";

const CACHE = "saboteur-{{ version }}";
const OFFLINE = {{ offline }};
const ASSETS = {{ assets }};
const STATIC = {{ static_prefix }};
const ICON = {{ icon }};
const BADGE = {{ badge }};

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll([OFFLINE, ...ASSETS]))
      .then(() => self.skipWaiting())
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(
        names.filter((name) => name !== CACHE).map((name) => caches.delete(name))
      );
      if (self.registration.navigationPreload) {
        await self.registration.navigationPreload.enable();
      }
      await self.clients.claim();
    })()
  );
});

async function page(event) {
  try {
    const preloaded = await event.preloadResponse;
    return preloaded || (await fetch(event.request));
  } catch (error) {
    const cache = await caches.open(CACHE);
    return (await cache.match(OFFLINE)) || Response.error();
  }
}

async function asset(event) {
  // Stale while revalidate: the cached copy at once, a fresh one for next time.
  const cache = await caches.open(CACHE);
  const cached = await cache.match(event.request);
  const fresh = fetch(event.request).then((response) => {
    if (response.ok && response.type === "basic") {
      cache.put(event.request, response.clone());
    }
    return response;
  });
  if (cached) {
    event.waitUntil(fresh.catch(() => undefined));
    return cached;
  }
  return fresh;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") {
    return;
  }
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) {
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(page(event));
  } else if (url.pathname.startsWith(STATIC)) {
    event.respondWith(asset(event));
  }
  // Anything else (htmx parts, polls, JSON) is the browser's own business: never cached here.
});

function sameOrigin(path) {
  try {
    const url = new URL(path || "/", self.location.origin);
    return url.origin === self.location.origin ? url.href : null;
  } catch (error) {
    return null;
  }
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (error) {
    data = {};
  }
  const offered = Array.isArray(data.actions) ? data.actions : [];
  const max = (self.Notification && Notification.maxActions) || 2;
  const targets = {};
  const actions = [];
  for (const action of offered.slice(0, max)) {
    const href = sameOrigin(action.url);
    if (href && action.action && action.title) {
      targets[action.action] = href;
      actions.push({ action: action.action, title: action.title });
    }
  }
  const options = {
    body: data.body || "",
    icon: ICON,
    badge: BADGE,
    lang: data.lang || "",
    data: { url: sameOrigin(data.url) || self.location.origin + "/", actions: targets },
    actions: actions,
  };
  if (data.tag) {
    options.tag = data.tag;
    options.renotify = true;
  }
  const work = [self.registration.showNotification(data.title || "Saboteur", options)];
  if (typeof data.waiting === "number" && "setAppBadge" in self.navigator) {
    const badge = data.waiting > 0
      ? self.navigator.setAppBadge(data.waiting)
      : self.navigator.clearAppBadge();
    work.push(badge.catch(() => undefined));
  }
  event.waitUntil(Promise.all(work));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  // An action opens its one-tap page: it asks for a confirmation before any move is made.
  const target = (event.action && data.actions && data.actions[event.action]) || data.url;
  if (!target) {
    return;
  }
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const client of windows) {
        if (client.url === target && "focus" in client) {
          return client.focus();
        }
      }
      return self.clients.openWindow(target);
    })()
  );
});
{% endautoescape %}

// Time-zone pickers (games/read/zones.py): a search box above each select[data-zone-picker]
// that narrows its options to those whose city, region or offset holds what is typed, and, for a
// player who never chose a zone, the browser's own zone selected (and said). Without this script
// the select works as it is: grouped by region, each zone with its offset.
(function () {
  "use strict";

  function folded(text) {
    // Case, accents and underscores do not matter: "sao paulo" finds "São Paulo".
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/_/g, " ").toLowerCase();
  }

  function say(region, text) {
    region.textContent = text;
  }

  function setUp(select, number) {
    // Every option as it was, with what a search matches in it.
    var entries = [];
    Array.prototype.forEach.call(select.children, function (child) {
      if (child.tagName === "OPTGROUP") {
        Array.prototype.forEach.call(child.children, function (option) {
          entries.push({ option: option, group: child, text: folded(option.text + " " + option.value + " " + child.label) });
        });
      } else {
        entries.push({ option: child, group: null, text: folded(child.text + " " + child.value) });
      }
    });
    var groups = Array.prototype.filter.call(select.children, function (c) { return c.tagName === "OPTGROUP"; });

    var box = document.createElement("div");
    box.className = "zone-search";
    box.style.marginBottom = "0.5rem"; // through the CSSOM, which the CSP allows
    var label = document.createElement("label");
    var input = document.createElement("input");
    var status = document.createElement("span");
    // A text field (styled as the site's others) that phones treat as a search.
    input.type = "text";
    input.setAttribute("role", "searchbox");
    input.setAttribute("inputmode", "search");
    input.id = (select.id || "zone-" + number) + "-search";
    input.autocomplete = "off";
    input.setAttribute("enterkeyhint", "search");
    input.setAttribute("spellcheck", "false");
    input.placeholder = select.dataset.searchPlaceholder || "";
    input.setAttribute("aria-controls", select.id);
    label.htmlFor = input.id;
    label.textContent = select.dataset.searchLabel || "";
    status.className = "helptext";
    status.id = input.id + "-status";
    status.setAttribute("aria-live", "polite");
    input.setAttribute("aria-describedby", status.id);
    box.appendChild(label);
    box.appendChild(input);
    box.appendChild(status);
    select.parentNode.insertBefore(box, select);

    function show(query) {
      var words = folded(query).split(/\s+/).filter(Boolean);
      var kept = entries.filter(function (entry) {
        return words.every(function (word) { return entry.text.indexOf(word) !== -1; });
      });
      if (!kept.length) {
        say(status, select.dataset.none || "");
        return; // the list stays whole: nothing to pick from otherwise
      }
      var chosen = select.value;
      // Rebuilt rather than hidden: phones' pickers ignore hidden options.
      groups.forEach(function (group) {
        while (group.firstChild) { group.removeChild(group.firstChild); }
      });
      while (select.firstChild) { select.removeChild(select.firstChild); }
      entries.forEach(function (entry) {
        if (kept.indexOf(entry) === -1) { return; }
        if (entry.group) {
          if (entry.group.parentNode !== select) { select.appendChild(entry.group); }
          entry.group.appendChild(entry.option);
        } else {
          select.appendChild(entry.option);
        }
      });
      // What the select shows is what is sent: the chosen zone if it is still listed, else the
      // first one found.
      var stillThere = kept.some(function (entry) { return entry.option.value === chosen; });
      select.value = stillThere ? chosen : kept[0].option.value;
      say(status, words.length ? (select.dataset.found || "").replace("%(count)s", kept.length) : "");
    }

    input.addEventListener("input", function () { show(input.value); });
    input.addEventListener("keydown", function (event) {
      // Enter or arrow down goes to the list found; it never sends the form half filled in.
      if (event.key === "Enter" || event.key === "ArrowDown") {
        event.preventDefault();
        select.focus();
      } else if (event.key === "Escape" && input.value) {
        event.preventDefault();
        input.value = "";
        show("");
      }
    });

    var fallback = select.dataset.browserDefault;
    if (fallback !== undefined && select.value === fallback) {
      var browser = "";
      try {
        browser = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
      } catch (error) {
        browser = "";
      }
      var found = entries.filter(function (entry) { return entry.option.value === browser; })[0];
      if (found && browser !== fallback) {
        select.value = browser;
        var note = document.createElement("p");
        note.className = "helptext zone-browser";
        note.setAttribute("data-testid", "zone-browser");
        note.textContent = (select.dataset.browserChosen || "").replace("%(zone)s", found.option.text);
        select.parentNode.insertBefore(note, select.nextSibling);
      }
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("select[data-zone-picker]").forEach(setUp);
  });
})();

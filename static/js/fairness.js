/* Deals anyone can check (issue 39, docs/fairness.md): sab-shuffle-v1 in the browser.
 *
 * The same algorithm as games/engine/fairness/, with WebCrypto's HMAC-SHA256 and SHA-256 and
 * no help from the server: `SabShuffle.verify(document)` answers the same list of differences
 * as the Python checker (empty: the deal matches). On the "Check this deal" page it fetches the
 * round's deal document and says whether it matches.
 */
(function () {
  "use strict";

  var ALGORITHM = "sab-shuffle-v1";
  var GOAL_PLACES = ["north", "middle", "south"];
  var encoder = new TextEncoder();

  function hexToBytes(hex) {
    if (typeof hex !== "string" || !/^([0-9a-fA-F]{2})*$/.test(hex)) return null;
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
    return out;
  }

  function bytesToHex(bytes) {
    return Array.prototype.map.call(new Uint8Array(bytes), function (b) {
      return (b < 16 ? "0" : "") + b.toString(16);
    }).join("");
  }

  function hmacKey(keyBytes) {
    return crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  }

  async function hmac(keyBytes, text) {
    var key = await hmacKey(keyBytes);
    return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text)));
  }

  async function commitment(serverSeed) {
    return bytesToHex(await crypto.subtle.digest("SHA-256", serverSeed));
  }

  function roundSeed(serverSeed, game, round, playerSeeds) {
    return hmac(serverSeed, [ALGORITHM, String(game), String(round)].concat(playerSeeds).join("|"));
  }

  /* The labelled byte stream of a round seed: blocks HMAC(seed, label + ":" + k), 4 bytes a draw. */
  function Stream(seed, label) {
    this.seed = seed;
    this.label = label;
    this.block = 0;
    this.buffer = new Uint8Array(0);
    this.key = null;
  }

  Stream.prototype.next4 = async function () {
    if (!this.key) this.key = await hmacKey(this.seed);
    while (this.buffer.length < 4) {
      var message = encoder.encode(this.label + ":" + this.block);
      var block = new Uint8Array(await crypto.subtle.sign("HMAC", this.key, message));
      var joined = new Uint8Array(this.buffer.length + block.length);
      joined.set(this.buffer);
      joined.set(block, this.buffer.length);
      this.buffer = joined;
      this.block += 1;
    }
    var word = new DataView(this.buffer.buffer, this.buffer.byteOffset, 4).getUint32(0, false);
    this.buffer = this.buffer.slice(4);
    return word;
  };

  Stream.prototype.uniform = async function (n) {
    if (!(n >= 1)) throw new Error("uniform needs n >= 1");
    var limit = 4294967296 - (4294967296 % n);
    for (;;) {
      var x = await this.next4();
      if (x < limit) return x % n;
    }
  };

  async function shuffle(items, seed, label) {
    var out = items.slice();
    var stream = new Stream(seed, label);
    for (var i = out.length - 1; i > 0; i--) {
      var j = await stream.uniform(i + 1);
      var t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
    return out;
  }

  function same(a, b) {
    if (a === b) return true;
    if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    var keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every(function (k) { return Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k]); });
  }

  /* The deal the true outputs make (docs/fairness.md, "From the seeds to the deal"). */
  function expectedDeal(doc, outputs, picks) {
    var deal = doc.deal || {};
    var expected = [];
    var players = doc.player_seeds.length;
    var roles = null;
    if ("seats" in outputs) expected.push(["seating", outputs.seats]);
    if ("gold" in outputs) expected.push(["gold_supply", outputs.gold]);
    if ("roles" in outputs) {
      roles = outputs.roles.slice(0, players);
      expected.push(["roles", roles]);
      expected.push(["set_aside", outputs.roles.slice(players)]);
    }
    if ("goals" in outputs) {
      var goals = {};
      GOAL_PLACES.forEach(function (place, i) { if (i < outputs.goals.length) goals[place] = outputs.goals[i]; });
      expected.push(["goals", goals]);
    }
    if ("deck" in outputs) {
      var rest = outputs.deck;
      var removed = (deal.removed || []).length;
      var size = Number(doc.hand_size || 0);
      expected.push(["removed", rest.slice(0, removed)]);
      rest = rest.slice(removed);
      var hands = [];
      for (var i = 0; i < players; i++) hands.push(rest.slice(i * size, (i + 1) * size));
      expected.push(["hands", hands]);
      expected.push(["pile", rest.slice(players * size)]);
    }
    if ("first" in picks) expected.push(["first", picks.first]);
    if ("greedy" in picks && roles) {
      var diggers = [];
      roles.forEach(function (role, i) { if (role === "gold-digger") diggers.push(i); });
      expected.push(["greedy", picks.greedy < diggers.length ? diggers[picks.greedy] : null]);
    }
    return expected;
  }

  /* What differs between a deal document and the algorithm: the Python checker's very words. */
  async function verify(doc) {
    var problems = [];
    if (doc.algorithm !== ALGORITHM) problems.push("algorithm: expected " + ALGORITHM);
    var server = hexToBytes(doc.server_seed);
    if (server === null) return problems.concat(["server_seed: missing or not hex"]);
    if ((await commitment(server)) !== doc.commitment) problems.push("commitment: SHA-256(server_seed) differs");
    var seed = await roundSeed(server, doc.game, doc.round, doc.player_seeds);
    if (bytesToHex(seed) !== doc.round_seed) problems.push("round_seed: differs");
    var outputs = {};
    var picks = {};
    for (var entry of doc.shuffles || []) {
      outputs[entry.label] = await shuffle(entry.input, seed, entry.label);
      if (!same(outputs[entry.label], entry.output)) problems.push("shuffle " + entry.label + ": output differs");
    }
    for (var pick of doc.picks || []) {
      picks[pick.label] = await new Stream(seed, pick.label).uniform(pick.n);
      if (picks[pick.label] !== pick.value) problems.push("pick " + pick.label + ": value differs");
    }
    if ("deal" in doc) {
      var deal = doc.deal || {};
      expectedDeal(doc, outputs, picks).forEach(function (pair) {
        var shown = Object.prototype.hasOwnProperty.call(deal, pair[0]) ? deal[pair[0]] : null;
        if (!same(shown, pair[1])) problems.push("deal " + pair[0] + ": differs");
      });
    }
    return problems;
  }

  window.SabShuffle = {
    commitment: commitment, roundSeed: roundSeed, Stream: Stream, shuffle: shuffle, verify: verify,
    hexToBytes: hexToBytes, bytesToHex: bytesToHex,
  };

  /* The "Check this deal" page: fetch the document, check it, say so. */
  async function check(box) {
    var result = box.querySelector("[data-fair-result]");
    var list = box.querySelector("[data-fair-problems]");
    if (!window.crypto || !crypto.subtle) {
      result.textContent = box.dataset.tInsecure;
      return;
    }
    try {
      var response = await fetch(box.dataset.deal, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(String(response.status));
      var problems = await verify(await response.json());
    } catch (error) {
      result.textContent = box.dataset.tFailed;
      return;
    }
    box.dataset.verdict = problems.length ? "differs" : "matches";
    result.className = problems.length ? "message message--error" : "message message--success";
    result.textContent = problems.length ? box.dataset.tDiffers : box.dataset.tMatches;
    problems.forEach(function (problem) {
      var item = document.createElement("li");
      item.textContent = problem;
      list.appendChild(item);
    });
    list.hidden = !problems.length;
  }

  function start() {
    document.querySelectorAll("[data-fair-check]").forEach(check);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

// Filters for the findings table. The state lives in the URL hash (#target=cann&status=port&...),
// so a filtered view can be shared as a link and opened from disk.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var table = document.getElementById("findings-table");
  if (!form || !table) { document.body.dataset.ready = "1"; return; }
  var fields = ["target", "status", "category", "context", "path", "blocking"];
  var blocking = ["rewrite", "port", "unsupported"];
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);

  function control(name) { return form.elements.namedItem(name); }

  function value(name) {
    var el = control(name);
    return el.type === "checkbox" ? (el.checked ? "1" : "") : el.value;
  }

  function inPart(row, part) {
    var training = row.dataset.context === "training";
    if (part === "training") return training && !row.dataset.root;
    if (part === "sites") return training && !!row.dataset.root;
    if (part === "test" || part === "tooling") return row.dataset.context === part;
    return true;
  }

  function matches(row, state) {
    if (!inPart(row, state.context)) return false;
    if (state.category && row.dataset.category !== state.category) return false;
    if (state.path && row.dataset.path.indexOf(state.path) === -1) return false;
    var pairs = row.dataset.statuses.split(" ").map(function (p) { return p.split(":"); });
    if (state.target) pairs = pairs.filter(function (p) { return p[0] === state.target; });
    if (state.status) pairs = pairs.filter(function (p) { return p[1] === state.status; });
    if (state.blocking) pairs = pairs.filter(function (p) { return blocking.indexOf(p[1]) !== -1; });
    return pairs.length > 0;
  }

  function apply() {
    var state = {};
    fields.forEach(function (name) { state[name] = value(name); });
    var shown = 0;
    rows.forEach(function (row) {
      var ok = matches(row, state);
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    document.getElementById("f-count").textContent = shown + " of " + rows.length + " findings";
    var hash = fields.filter(function (n) { return state[n]; })
      .map(function (n) { return n + "=" + encodeURIComponent(state[n]); }).join("&");
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", hash ? "#" + hash : window.location.pathname + window.location.search);
    }
    document.body.dataset.shown = String(shown);
  }

  function fromHash() {
    var hash = window.location.hash.replace(/^#/, "");
    if (!hash || hash.indexOf("=") === -1) return;
    hash.split("&").forEach(function (pair) {
      var kv = pair.split("=");
      var el = control(kv[0]);
      if (!el || fields.indexOf(kv[0]) === -1) return;
      var v = decodeURIComponent(kv[1] || "");
      if (el.type === "checkbox") { el.checked = v === "1"; } else { el.value = v; }
    });
  }

  fromHash();
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  apply();
  document.body.dataset.ready = "1";
})();

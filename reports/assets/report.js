// Links to a section (#blockers) open the collapsed part they land in: the page never rewrites the hash on
// load (a filter's state is written only when the reader changes a filter).
// The list of findings, drawn from the JSON the page embeds (#findings-data, see report/html.py
// findings_data), one file at a time: a group's rows are made when it is opened, and the first groups are
// opened up to a budget of rows, so a page of 40,000 findings stays light. The filters' state lives in the
// URL hash (#target=cann&status=port&...), so a filtered view can be shared as a link and opened from disk.
// Every string from the data goes in through textContent: nothing in it becomes markup.
(function () {
  "use strict";
  // open every closed <details> around the element the hash names, and a section's own collapsed body
  function reveal() {
    var hash = window.location.hash.replace(/^#/, "");
    if (!hash) return;
    var target = hash.indexOf("=") === -1 ? document.getElementById(decodeURIComponent(hash))
      : document.getElementById("findings");  // a filter's state: the findings it filters
    if (!target) return;
    if (target.tagName === "SECTION") {
      var body = target.querySelector("details.section-body") || target.querySelector("details");
      if (body) body.open = true;
    }
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    target.scrollIntoView();
  }
  window.addEventListener("hashchange", reveal);
  reveal();
})();
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var list = document.getElementById("findings-list");
  var source = document.getElementById("findings-data");
  if (!form || !list || !source) { document.body.dataset.ready = "1"; return; }
  var data = JSON.parse(source.textContent);
  var S = data.strings, T = data.targets;
  var fields = ["target", "status", "category", "context", "path", "blocking"];
  var blocking = ["rewrite", "port", "unsupported"];
  var severity = ["unsupported", "port", "rewrite", "fallback", "partial", "unknown", "supported"];
  var EAGER_ROWS = 200;
  // a row: [path, line, col, cell, rule, category, api, snippet, context, root_where, reachable, confidence, verdicts]
  var P = 0, LINE = 1, COL = 2, CELL = 3, RULE = 4, CAT = 5, API = 6, SNIP = 7, CTX = 8, ROOT = 9, REACH = 10,
      CONF = 11, VER = 12;

  function str(i) { return i < 0 ? null : S[i]; }
  function control(name) { return form.elements.namedItem(name); }
  function value(name) {
    var el = control(name);
    return el.type === "checkbox" ? (el.checked ? "1" : "") : el.value;
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function inPart(row, part) {
    var training = data.contexts[row[CTX]] === "training";
    if (part === "training") return training && row[ROOT] < 0;
    if (part === "sites") return training && row[ROOT] >= 0;
    if (part === "test" || part === "tooling") return data.contexts[row[CTX]] === part;
    return true;
  }

  function matches(row, state) {
    if (!inPart(row, state.context)) return false;
    if (state.category && S[row[CAT]] !== state.category) return false;
    if (state.path && S[row[P]].indexOf(state.path) === -1) return false;
    var verdicts = data.verdicts[row[VER]];
    for (var t = 0; t < T.length; t++) {
      var v = verdicts[t];
      if (!v) continue;
      if (state.target && T[t] !== state.target) continue;
      if (state.status && v[0] !== state.status) continue;
      if (state.blocking && blocking.indexOf(v[0]) === -1) continue;
      return true;
    }
    return false;
  }

  function worst(row) {
    var best = severity.length - 1;
    data.verdicts[row[VER]].forEach(function (v) {
      if (v && severity.indexOf(v[0]) < best) best = severity.indexOf(v[0]);
    });
    return severity[best];
  }

  function where(row) {
    var cell = row[CELL] === null ? "" : "cell " + row[CELL] + " ";
    return cell + (row[LINE] === null ? "-" : row[LINE]) + ":" + (row[COL] === null ? "-" : row[COL] + 1);
  }

  function verdictCell(v) {
    var td = el("td");
    if (!v) { td.textContent = "-"; return td; }
    var pill = el("span", "pill st-" + v[0], v[0]);
    pill.title = str(v[4]) || "";
    td.appendChild(pill);
    if (v[0] !== "supported") {
      var details = el("details");
      details.appendChild(el("summary", null, "why"));
      details.appendChild(el("p", null, str(v[1])));
      if (v[2] >= 0) {
        var p = el("p", null, "suggestion: ");
        p.appendChild(el("code", null, str(v[2])));
        if (v[3]) p.appendChild(document.createTextNode(" (safe to apply)"));
        details.appendChild(p);
      }
      details.appendChild(el("p", "source", str(v[4])));
      td.appendChild(details);
    }
    return td;
  }

  function rowElement(row) {
    var tr = el("tr");
    tr.dataset.path = S[row[P]];
    tr.dataset.context = data.contexts[row[CTX]];
    tr.dataset.worst = worst(row);
    var cellWhere = el("td", "where", where(row));
    if (row[ROOT] >= 0) {
      cellWhere.appendChild(el("br"));
      cellWhere.appendChild(el("small", null, "a use of the cause at " + S[row[ROOT]]));
      tr.dataset.root = S[row[ROOT]];
    }
    if (data.contexts[row[CTX]] !== "training") {
      cellWhere.appendChild(el("br"));
      cellWhere.appendChild(el("small", null, data.contexts[row[CTX]]));
    }
    tr.appendChild(cellWhere);
    var rule = el("td", null, S[row[RULE]]);
    rule.appendChild(el("br"));
    rule.appendChild(el("small", null, S[row[CAT]]));
    if (S[row[CONF]] !== "resolved") {
      rule.appendChild(el("br"));
      rule.appendChild(el("span", "pill conf-" + S[row[CONF]], S[row[CONF]]));
    }
    tr.appendChild(rule);
    var api = el("td");
    api.appendChild(el("code", null, S[row[API]]));
    api.appendChild(el("pre", "snippet", S[row[SNIP]]));
    tr.appendChild(api);
    data.verdicts[row[VER]].forEach(function (v) { tr.appendChild(verdictCell(v)); });
    tr.appendChild(el("td", null, row[REACH] === 1 ? "yes" : row[REACH] === 0 ? "no" : "?"));
    return tr;
  }

  function table(rows) {
    var t = el("table", "findings");
    var head = el("tr");
    ["where", "rule", "api / code"].concat(T).concat(["on path"]).forEach(function (h) {
      head.appendChild(el("th", null, h));
    });
    t.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    rows.forEach(function (row) { body.appendChild(rowElement(row)); });
    t.appendChild(body);
    return t;
  }

  function group(path, rows, open) {
    var details = el("details", "file");
    var counts = {};
    rows.forEach(function (row) { var w = worst(row); counts[w] = (counts[w] || 0) + 1; });
    var summary = el("summary");
    summary.appendChild(el("code", null, path));
    summary.appendChild(el("span", "where", " " + rows.length + " finding" + (rows.length === 1 ? "" : "s")));
    severity.forEach(function (status) {
      if (counts[status]) summary.appendChild(el("span", "pill st-" + status, counts[status] + " " + status));
    });
    details.appendChild(summary);
    var drawn = false;
    function draw() { if (!drawn) { drawn = true; details.appendChild(table(rows)); } }
    details.addEventListener("toggle", function () { if (details.open) draw(); });
    if (open) { draw(); details.open = true; }
    return details;
  }

  function apply(initial) {
    var state = {};
    fields.forEach(function (name) { state[name] = value(name); });
    var byPath = {}, order = [], shown = 0;
    data.rows.forEach(function (row) {
      if (!matches(row, state)) return;
      var path = S[row[P]];
      if (!byPath[path]) { byPath[path] = []; order.push(path); }
      byPath[path].push(row);
      shown += 1;
    });
    while (list.firstChild) list.removeChild(list.firstChild);
    var budget = EAGER_ROWS;
    order.forEach(function (path) {
      var rows = byPath[path];
      list.appendChild(group(path, rows, budget >= rows.length));
      budget -= rows.length;
    });
    document.getElementById("f-count").textContent = shown + " of " + data.rows.length + " findings in " +
      order.length + " files";
    var hash = fields.filter(function (n) { return state[n]; })
      .map(function (n) { return n + "=" + encodeURIComponent(state[n]); }).join("&");
    if (initial !== true && window.history && window.history.replaceState) {
      window.history.replaceState(null, "", hash ? "#" + hash : window.location.pathname + window.location.search);
    }
    document.body.dataset.shown = String(shown);
  }

  function fromHash() {
    var hash = window.location.hash.replace(/^#/, "");
    if (!hash || hash.indexOf("=") === -1) return;
    hash.split("&").forEach(function (pair) {
      var kv = pair.split("=");
      var control_ = control(kv[0]);
      if (!control_ || fields.indexOf(kv[0]) === -1) return;
      var v = decodeURIComponent(kv[1] || "");
      if (control_.type === "checkbox") { control_.checked = v === "1"; } else { control_.value = v; }
    });
  }

  fromHash();
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  apply(true);
  // for the browser test: a page wider than the window scrolls sideways (it must not at 1,400 px)
  document.body.dataset.pageWidth = String(document.documentElement.scrollWidth);
  // for bench/bench_page.py: milliseconds from the start of navigation to the end of this script
  document.body.dataset.loadMs = String(Math.round(window.performance ? window.performance.now() : 0));
  document.body.dataset.hash = window.location.hash;  // for the browser test: the hash as the page left it
  document.body.dataset.ready = "1";
})();

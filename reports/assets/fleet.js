// The fleet page: sort the repositories table by a column head; mark the page ready for tests.
(function () {
  "use strict";
  var table = document.getElementById("repo-table");
  if (table) {
    var heads = table.querySelectorAll("th[data-sort]");
    heads.forEach(function (head) {
      head.style.cursor = "pointer";
      head.addEventListener("click", function () {
        var column = Array.prototype.indexOf.call(head.parentNode.children, head);
        var numeric = head.getAttribute("data-sort") === "number";
        var descending = head.getAttribute("data-order") !== "desc";
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[column], y = b.cells[column];
          var u = numeric ? parseFloat(x.getAttribute("data-value")) : x.textContent.trim();
          var v = numeric ? parseFloat(y.getAttribute("data-value")) : y.textContent.trim();
          var order = numeric ? u - v : u.localeCompare(v);
          return descending ? -order : order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
        head.setAttribute("data-order", descending ? "desc" : "asc");
      });
    });
  }
  var params = new URLSearchParams(location.hash.slice(1));
  var sortBy = params.get("sort");
  if (sortBy && table) {
    var head = Array.prototype.find.call(table.querySelectorAll("th[data-sort]"),
      function (h) { return h.textContent.trim() === sortBy; });
    if (head) head.click();
  }
  document.body.setAttribute("data-ready", "1");
})();

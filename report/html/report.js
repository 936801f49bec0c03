// fsmove's HTML report: the filters and the copy buttons. Nothing is
// loaded; without the script the page shows everything.
(function () {
  "use strict";
  var kinds = Array.prototype.slice.call(document.querySelectorAll("input.kind-filter"));
  var text = document.getElementById("resource-filter");
  var shown = document.getElementById("shown");
  var findings = Array.prototype.slice.call(document.querySelectorAll("#findings article.finding"));

  function apply() {
    var on = {};
    kinds.forEach(function (k) { on[k.value] = k.checked; });
    var q = text ? text.value.trim().toLowerCase() : "";
    var n = 0;
    findings.forEach(function (f) {
      var show = on[f.dataset.kind] !== false && (q === "" || f.dataset.resources.indexOf(q) >= 0);
      f.hidden = !show;
      var li = document.querySelector('#toc li[data-for="' + f.id + '"]');
      if (li) { li.hidden = !show; }
      if (show) { n++; }
    });
    document.querySelectorAll("#findings .group").forEach(function (g) {
      g.hidden = g.querySelector("article.finding:not([hidden])") === null;
    });
    if (shown) { shown.textContent = n + " of " + findings.length + " shown"; }
  }
  kinds.forEach(function (k) { k.addEventListener("change", apply); });
  if (text) { text.addEventListener("input", apply); }
  apply();

  // Copy: the clipboard API where the page may use it, else a selection.
  function copied(b) {
    b.classList.add("done");
    b.textContent = "Copied";
    setTimeout(function () { b.classList.remove("done"); b.textContent = "Copy"; }, 1500);
  }
  function fallback(b, s) {
    var t = document.createElement("textarea");
    t.value = s;
    document.body.appendChild(t);
    t.select();
    try { document.execCommand("copy"); copied(b); } catch (e) { /* nothing to copy to */ }
    document.body.removeChild(t);
  }
  document.querySelectorAll("button.copy").forEach(function (b) {
    b.addEventListener("click", function () {
      var s = b.dataset.copy || "";
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(s).then(function () { copied(b); }, function () { fallback(b, s); });
      } else {
        fallback(b, s);
      }
    });
  });
})();

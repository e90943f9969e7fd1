// On every page of the book (cs336_lec2.publish.sphinx_ext registers it, deferred): where the page
// holds the calculator (#cs336-calculator) or an inline one (.cs336-calc), load its styles and
// scripts; elsewhere do nothing. Ordinary scripts, inserted in order: no ES modules and no fetch,
// so the book works opened from disk (file://), where Chromium refuses both.
(function () {
  "use strict";
  const full = document.getElementById("cs336-calculator");
  const inline = document.querySelector(".cs336-calc[data-config]");
  if (!full && !inline) return;
  const here = document.currentScript ? document.currentScript.src : "";
  const dir = here.slice(0, here.lastIndexOf("/") + 1);  // .../_static/calculator/
  const NS = (window.CS336_CALC = window.CS336_CALC || {});
  NS.ROOT = dir.replace(/_static\/calculator\/$/, "");  // the edition's root: book/calculator.html is there
  const css = document.createElement("link");
  css.rel = "stylesheet";
  css.href = `${dir}calculator.css`;
  document.head.append(css);
  const names = ["data.js", "formulas.js", "url.js", "strings.js"];
  if (full) names.push("calculator.js");
  if (full && document.getElementById("cs336-validation")) names.push("validation.js");
  if (inline) names.push("mini.js");
  for (const name of names) {
    const s = document.createElement("script");
    s.src = dir + name;
    s.async = false;  // run in this order, each as soon as it and those before it have arrived
    document.head.append(s);
  }
})();

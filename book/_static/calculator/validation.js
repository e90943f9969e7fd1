// The calculator against published runs: the table of cs336_lec2.validation.page_rows, which data.js
// carries (the package computes every number when it writes data.js; nothing here is typed). Each run
// opens in the calculator above. An ordinary script (the book opens from file:// too), loaded by
// loader.js after calculator.js on the page that holds <div id="cs336-validation">.
(function (NS) {
"use strict";
const { DATA, T, fmtInt, normalize, toHash } = NS;
const pct = (x) => `${(100 * x).toFixed(1)}%`;  // 70%, as the book writes it
const gib = (x) => `${(x / 2 ** 30).toFixed(1)} GiB`;
const fill = (text, params) => text.replace(/\{(\w+)\}/g, (_, name) => params[name]);

function cells(row) {
  const c = row.calc, V = T.validation;
  if (row.kind === "mfu") {
    return [fill(V.mfuAt, { mfu: pct(row.mfu), tps: fmtInt.format(row.tokens_per_gpu_s) }),
      `MFU ${pct(c.mfu)}${T.sep}${fill(V.embedding, { mfu: pct(c.mfu_embedding_counted) })}`, c.ratio.toFixed(3)];
  }
  if (row.kind === "throughput") {
    const [lo, hi] = row.mfu_range;
    return [`${fmtInt.format(row.tokens_per_gpu_s)} ${V.tps}${T.sep}${fill(V.stated, { lo: `${Math.round(100 * lo)}%`, hi: `${Math.round(100 * hi)}%` })}${T.sep}`
      + `${gib(row.memory_gib * 2 ** 30)}`,
      `${fill(V.needs, { mfu: pct(c.mfu) })}${T.sep}${fill(V.bracket, { full: gib(c.memory_full), none: gib(c.memory_none) })}${T.sep}`
      + fill(V.drop, { calc: gib(c.memory_drop), pub: gib(c.memory_drop_published) }),
      `${c.ratio.toFixed(3)}${V.ofDrop}`];
  }
  return [`${fmtInt.format(row.gpu_hours)} ${V.hours}`,
    `${fill(V.at, { hours: fmtInt.format(Math.round(c.gpu_hours)), mfu: pct(row.config.mfu) })}${T.sep}`
    + fill(V.implied, { mfu: pct(c.mfu) }), c.ratio.toFixed(3)];
}

function render(box) {
  const V = T.validation;
  const t = document.createElement("table");
  t.className = "cs336-calc-table cs336-validation-table";
  t.createCaption().textContent = V.caption;
  const head = t.createTHead().insertRow();
  for (const h of [V.run, V.published, V.calculator, V.ratio, V.source]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = h;
    head.append(th);
  }
  const body = t.createTBody();
  for (const row of DATA.validation) {
    const tr = body.insertRow();
    const th = document.createElement("th");
    th.scope = "row";
    const link = document.createElement("a");
    link.href = toHash(normalize(row.config));
    link.textContent = NS.ZH ? row.label_zh : row.label_en;
    th.append(link);
    tr.append(th);
    for (const text of cells(row)) tr.insertCell().textContent = text;
    const source = tr.insertCell();
    source.textContent = row.source_short;
    source.title = row.source;  // the full citation: commit, table, what is assumed
  }
  box.replaceChildren(t);
  box.dataset.ready = "1";
}

const box = document.getElementById("cs336-validation");
if (box) render(box);
})(window.CS336_CALC = window.CS336_CALC || {});

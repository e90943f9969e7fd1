// The inline calculator a chapter holds: <div class="cs336-calc" data-config="model=llama2-70b&gpus=1024">
// shows the few headline numbers of that configuration and links the full page with it. An ordinary
// script (the book opens from file:// too), loaded by loader.js after data.js, formulas.js, url.js and
// strings.js; the chapter's markdown keeps a plain link inside the div for a reader without JavaScript.
(function (NS) {
"use strict";
const { DATA, T, ZH, calculate, fmtDays, fmtInt, message, readHash } = NS;
const paren = (text) => (ZH ? `（${text}）` : ` (${text})`);
const GB = 1e9;

function short(x) {  // 15000000000000 -> "15.0 T"
  for (const [unit, scale] of [["T", 1e12], ["B", 1e9], ["M", 1e6], ["K", 1e3]]) {
    if (x >= scale) return `${(x / scale).toPrecision(3)}\u00a0${unit}`;  // no break inside "15.0 T"
  }
  return String(x);
}

function row(list, name, value) {
  const dt = document.createElement("dt");
  dt.textContent = name;
  const dd = document.createElement("dd");
  dd.append(...value);
  list.append(dt, dd);
}

function verdict(ok, yes, no) {
  const b = document.createElement("strong");
  b.className = ok ? "cs336-calc-fits" : "cs336-calc-nofit";
  b.textContent = ok ? yes : no;
  return b;
}

/** Fill one inline calculator from its data-config (the full page's address, without the "#"). */
function fill(box) {
  const hash = (box.dataset.config || "").replace(/^#/, "");
  const { config: c, errors } = readHash(hash);
  const r = calculate(c);
  const card = DATA.accelerators[c.gpu];
  const title = document.createElement("p");
  title.className = "cs336-calc-mini-title";
  const model = c.model === "custom" ? T.custom : DATA.presets[c.model].name;
  title.textContent = `${T.mini}${T.colon}${model} · ${fmtInt.format(c.num_gpus)} × ${card.name}`
    + ` · T = ${fmtInt.format(c.seq_len)}, B = ${c.micro_batch} · D = ${short(c.tokens)} ${T.tokensWord}`;
  const list = document.createElement("dl");
  const total = Number(r.parameters.total);
  row(list, T.miniParams, [`${(total / 1e9).toPrecision(4)} B${paren(fmtInt.format(total))}`]);
  const days = r.time.days === null ? T.noPeak : `${fmtDays(r.time.days)} ${T.days_unit}${paren(`MFU ${c.mfu}`)}`;
  row(list, T.miniDays, [days]);
  const m = r.memory;
  row(list, T.miniMemory, [`${(m.total / GB).toFixed(1)} GB / ${(Number(m.card) / GB).toFixed(0)} GB — `,
    verdict(m.fits, T.fits, T.noFit), paren(`${T.mem.activations} ${(Number(m.activations) / GB).toFixed(1)} GB`)]);
  const comm = r.communication.seconds_per_step;
  const network = DATA.clusters[c.gpu] ? T.wholeNodes : T.noNetwork;
  row(list, T.miniComm, [comm === null ? network : `${comm.toPrecision(3)} ${T.seconds}`]);
  const perStep = r.step.seconds === null ? T.noPeak
    : `${r.step.seconds.toPrecision(3)} ${T.seconds}${ZH ? "，" : ", "}${short(r.step.tokens_per_second)} ${T.tokensPerSecond}`;
  row(list, T.step_seconds, [perStep]);
  const link = document.createElement("a");
  link.className = "cs336-calc-mini-link";
  link.href = `${NS.ROOT}book/calculator.html#${hash}`;
  link.textContent = `${T.open} →`;
  const children = [title, list, link];
  if (Object.keys(errors).length) {
    const bad = document.createElement("p");
    bad.className = "cs336-calc-error";
    bad.textContent = Object.values(errors).map(message).join(T.sep);
    children.splice(1, 0, bad);
  }
  box.classList.add("cs336-calc-mini");
  box.replaceChildren(...children);
  box.dataset.ready = "1";
}

const boxes = document.querySelectorAll(".cs336-calc[data-config]");
boxes.forEach(fill);
window.cs336MiniCalculator = { fill, count: boxes.length };
})(window.CS336_CALC = window.CS336_CALC || {});

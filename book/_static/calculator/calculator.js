// The calculator page: a form, its state in the URL hash, and the results of formulas.js.
// An ordinary script (Chromium refuses module scripts from file://, and the book opens from disk),
// no framework, nothing from the network; loader.js loads it after data.js, formulas.js, url.js and
// strings.js. The page (book/<lang>/calculator.md) holds <div id="cs336-calculator"></div>; the
// language comes from <html lang>.
(function (NS) {
"use strict";
const { ARCHITECTURE, DATA, F, T, calculate, fmtDays, fmtInt, message, normalize, readHash, readValid, reason,
  serialize, toHash } = NS;
const STARTED = performance.now();  // when this script began to run (ms since navigation start)
const URL_DELAY_MS = 150;
const GB = 1e9, GIB = 2 ** 30;

function short(x) {
  const v = Number(x);
  for (const [unit, scale] of [["T", 1e12], ["B", 1e9], ["M", 1e6], ["K", 1e3]]) {
    if (Math.abs(v) >= scale) return `${(v / scale).toPrecision(4)} ${unit}`;
  }
  return String(v);
}
const sci = (x) => Number(x).toExponential(3).replace("e+", "e");
const bytes = (x) => `${(Number(x) / GB).toFixed(2)} GB (${(Number(x) / GIB).toFixed(2)} GiB)`;
const flopRate = (x) => `${(x / 1e12).toPrecision(4)} TFLOP/s`;

function field(key, control) {
  const wrap = document.createElement("div");
  // selects and long numbers (tokens) take the card's width under their label: their text is never cut
  const wide = control.tagName === "SELECT" || Number(control.max) > 1e9;
  wrap.className = `cs336-calc-field cs336-calc-field-${control.type === "checkbox" ? "check"
    : wide ? "wide" : "number"}`;
  const label = document.createElement("label");
  label.htmlFor = `calc-${key}`;
  label.textContent = T[key];
  control.id = `calc-${key}`;
  control.name = key;
  // The error of this input, right under it: the reader sees it where they type, at any width.
  const error = document.createElement("p");
  error.className = "cs336-calc-field-error";
  error.id = `calc-${key}-error`;
  error.hidden = true;
  if (control.type === "checkbox") wrap.append(control, label, error);
  else wrap.append(label, control, error);
  return wrap;
}

function select(key, options) {
  const s = document.createElement("select");
  for (const [value, text, title] of options) {
    const option = new Option(text, value);
    if (title) option.title = title;
    s.add(option);
  }
  return field(key, s);
}

function number(key, attrs) {
  const input = document.createElement("input");
  input.type = "number";
  Object.assign(input, { step: 1, required: true, ...attrs });
  return field(key, input);
}

function checkbox(key) {
  const input = document.createElement("input");
  input.type = "checkbox";
  return field(key, input);
}

function fieldset(legend, children) {
  const fs = document.createElement("fieldset");
  const lg = document.createElement("legend");
  lg.textContent = legend;
  fs.append(lg, ...children);
  return fs;
}

// The words of each choice; the choices themselves, like every input's kind and limits, come from data.js.
const OPTION_TEXT = {
  model: (k) => (k === "custom" ? T.custom : DATA.presets[k].name),
  gpu: (k) => {  // short enough for the select: the peak goes into the option's tooltip and the results
    const a = DATA.accelerators[k], name = a.name.replace(/^NVIDIA /, "");
    return /GB$/.test(name) ? name : `${name} (${a.memory_bytes / GB} GB)`;
  },
  norm: (k) => T.norms[k], positions: (k) => T.positionsList[k], precision: (k) => T.precisions[k] || k,
  optimizer: (k) => T.optimizers[k] || k, stage: (k) => T.stages[k], recompute: (k) => T.recomputes[k],
};
const OPTION_TITLE = {
  gpu: (k) => {
    const a = DATA.accelerators[k];
    return a.peak_flops.bf16 ? `${a.name}: ${a.memory_bytes / GB} GB, ${flopRate(a.peak_flops.bf16)} ${T.dense} bf16` : a.name;
  },
};

/** The control of one input (calculator.FIELDS), with its limits. */
function control(f) {
  if (f.kind === "choice") {
    return select(f.key, f.options.map((k) => [k, OPTION_TEXT[f.key](k), OPTION_TITLE[f.key]?.(k)]));
  }
  if (f.kind === "bool") return checkbox(f.key);
  const attrs = { min: f.minimum, max: f.maximum };
  if (f.kind === "real") attrs.step = "any";
  if (f.optional) Object.assign(attrs, { required: false, placeholder: "d / H" });
  return number(f.key, attrs);
}

function buildForm() {
  const form = document.createElement("form");
  form.className = "cs336-calc-form";
  form.addEventListener("submit", (e) => e.preventDefault());
  for (const group of ["model", "training", "hardware", "recipe"]) {
    form.append(fieldset(T[group], DATA.schema.fields.filter((f) => f.group === group).map(control)));
  }
  return form;
}

function readForm(form) {
  const config = {};
  for (const key of Object.keys(DATA.defaults)) {
    const el = form.elements[key];
    if (!el) continue;
    if (el.type === "checkbox") config[key] = el.checked;
    else if (el.type === "number") {  // an empty head size is d / H; any other empty number is an error
      const empty = el.value.trim() === "";
      config[key] = empty && key === "head_size" ? null : empty ? NaN : Number(el.value);
    }
    else config[key] = el.value;
  }
  if (config.model !== "custom") for (const key of ARCHITECTURE) delete config[key];
  return config;
}

function writeForm(form, c) {  // the fields c gives
  for (const key of Object.keys(c)) {
    const el = form.elements[key];
    if (!el) continue;
    if (el.type === "checkbox") el.checked = c[key];
    else el.value = c[key] === null ? "" : String(c[key]);
  }
}

function table(caption, head, rows) {
  const t = document.createElement("table");
  t.className = "cs336-calc-table";
  const cap = t.createCaption();
  cap.textContent = caption;
  const hr = t.createTHead().insertRow();
  for (const h of head) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = h;
    hr.append(th);
  }
  const body = t.createTBody();
  for (const [label, ...cells] of rows) {
    const r = body.insertRow();
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = label;
    r.append(th);
    for (const cell of cells) {
      const td = r.insertCell();
      if (cell instanceof Node) td.append(cell);
      else td.textContent = cell;
    }
  }
  return t;
}

function badge(ok) {
  const b = document.createElement("strong");
  b.className = ok ? "cs336-calc-fits" : "cs336-calc-nofit";
  b.textContent = ok ? T.fits : T.noFit;
  return b;
}

function commRows(comm, c) {
  const perGpu = c.micro_batch * c.seq_len;
  const p = DATA.precisions[c.precision], width = (b) => (b === 2 ? "bf16" : "fp32");
  const rows = [[T.commDtypes, `${width(p.param)} / ${width(c.reduce_fp32 ? 4 : p.grad)}`], [T.bytes_per_step, bytes(comm.bytes_per_step)],
    [T.tokens_per_step, fmtInt.format(comm.tokens_per_step)], [T.tokens_per_gpu, fmtInt.format(perGpu)]];
  const k = DATA.clusters[c.gpu];
  if (!k) return [...rows, [T.network, T.noNetwork]];
  const gbs = (x) => `${x / 1e9} GB/s`;
  rows.push([T.network, `${k.name}: NVLink ${gbs(k.nvlink)}, ${k.nics_per_node} × ${gbs(k.nic)}${T.perDirection}`
    + (k.nvls && c.nvls ? `; NVLS ${gbs(k.nvls * 14 / 8)}` : `; ${T.noNvls}`)]);
  if (comm.seconds_per_step === null) return [...rows, [T.seconds_per_step, T.wholeNodes]];
  rows.push([T.seconds_per_step, `${comm.seconds_per_step.toPrecision(3)} ${T.seconds}`]);
  if (comm.breakeven_tokens_per_gpu === null) return [...rows, [T.breakEven, T.noPeak]];
  const even = comm.breakeven_tokens_per_gpu;
  const verdict = document.createElement("span");
  verdict.append(`${fmtInt.format(Math.ceil(even))} — `, badgeText(perGpu >= even, T.hidden, T.exposed));
  return [...rows, [T.breakEven, verdict]];
}

function stepRows(step, c) {
  const rate = (x) => (x === null ? T.noPeak : `${short(x)}`);
  return [[T.grad_accum, fmtInt.format(c.grad_accum)], [T.global_batch, fmtInt.format(step.global_batch)],
    [T.global_batch_tokens, fmtInt.format(step.global_batch_tokens)],
    [T.step_seconds, step.seconds === null ? T.noPeak : `${step.seconds.toPrecision(3)} ${T.seconds}`],
    [T.tokens_per_second, rate(step.tokens_per_second)],
    [T.tokens_per_second_gpu, rate(step.tokens_per_second === null ? null : step.tokens_per_second / c.num_gpus)],
    [T.steps, fmtInt.format(step.steps)]];
}

function badgeText(ok, yes, no) {
  const b = document.createElement("strong");
  b.className = ok ? "cs336-calc-fits" : "cs336-calc-nofit";
  b.textContent = ok ? yes : no;
  return b;
}

// A stacked bar of the memory per GPU, the card's capacity marked; the table beside it has the numbers.
// ``old`` (the bar drawn last time) is updated in place.
const PARTS = ["params", "grads", "optimizer_state", "activations", "logits", "logits_grad", "gathered",
  "ddp_buckets", "cuda_context"];
function memoryBar(m, old) {
  const scale = Math.max(m.total, Number(m.card));
  const draw = (wrap) => {
    const [bar] = wrap.children;
    PARTS.forEach((part, i) => {
      const seg = bar.children[i];
      seg.style.width = `${(100 * Number(m[part])) / scale}%`;
      seg.title = `${T.mem[part]}: ${bytes(m[part])}`;
    });
    bar.lastElementChild.style.left = `${(100 * Number(m.card)) / scale}%`;
    return wrap;
  };
  if (old?.classList.contains("cs336-calc-barwrap")) return draw(old);
  const bar = document.createElement("span");
  bar.className = "cs336-calc-bar";
  for (const part of PARTS) {
    const seg = document.createElement("span");
    seg.className = `cs336-calc-seg cs336-calc-seg-${part}`;
    bar.append(seg);
  }
  const card = document.createElement("span");
  card.className = "cs336-calc-card";
  bar.append(card);
  const legend = document.createElement("span");
  legend.className = "cs336-calc-legend";
  for (const part of PARTS) {
    const key = document.createElement("span");
    key.className = `cs336-calc-key cs336-calc-seg-${part}`;
    legend.append(key, T.mem[part].replace(/（.*|\s\(.*/, ""), " ");
  }
  const wrap = document.createElement("span");
  wrap.className = "cs336-calc-barwrap";
  wrap.setAttribute("aria-hidden", "true");
  wrap.append(bar, legend);
  return draw(wrap);
}

function setCell(cell, value) {
  if (value instanceof Node) {
    const now = cell.firstElementChild?.outerHTML;
    if (cell.childNodes.length !== 1 || now !== value.outerHTML) cell.replaceChildren(value);
  } else if (cell.textContent !== value) {
    cell.textContent = value;
  }
}

/** Put ``rows`` into ``old`` when it has as many rows (only changed text is touched), else a new table. */
function patchTable(old, caption, head, rows) {
  const body = old?.tBodies[0];
  if (!body || body.rows.length !== rows.length) return table(caption, head, rows);
  rows.forEach((row, i) => row.forEach((value, j) => setCell(body.rows[i].cells[j], value)));
  return old;
}

function render(out, r, c) {
  const days = (d) => (d === null ? T.noPeak : `${fmtDays(d)} ${T.days_unit}`);
  const peak = r.time.peak_flops === null ? T.noPeak
    : `${flopRate(r.time.peak_flops)}${T.paren(`${T.dense} ${r.time.peak_dtype}${T.comma}${DATA.accelerators[c.gpu].name}`)}`;
  const m = r.memory;
  const memRows = PARTS.map((k) => [T.mem[k], bytes(m[k])]);
  memRows.push([T.mem.total, bytes(m.total)], [T.mem.card, bytes(m.card)]);
  const summary = document.createElement("p");
  summary.className = "cs336-calc-summary";
  summary.setAttribute("role", "status");  // read out when it changes: the one-line answer
  summary.append(`${T.memory}${T.colon}${bytes(m.total)} / ${bytes(m.card)} — `, badge(m.fits));
  const tables = [
    [T.parameters, [T.part, T.count], Object.entries(r.parameters)
      .map(([k, v]) => [T.parts[k], `${fmtInt.format(v)} (${short(v)})`])],
    [T.flops, [T.quantity, T.value], [
      [T.per_token_6n, sci(r.flops.per_token_6n)], [T.per_token, sci(r.flops.per_token)],
      [T.per_token_hardware, sci(r.flops.per_token_hardware)], [T.hfu, r.time.hfu.toPrecision(3)],
      [T.total_6n, sci(r.flops.total_6n)], [T.total, sci(r.flops.total)], [T.peak, peak],
      [T.days_6n, days(r.time.days_6n)], [T.days, days(r.time.days)]]],
    [T.memory, [T.kind, T.bytes], memRows],
    [T.largest, [T.stage, T.maxParams], Object.entries(r.largest_model)
      .map(([k, v]) => [T.stages[k], `${short(v)} (${fmtInt.format(v)})`])],
    [T.comm, [T.quantity, T.value], commRows(r.communication, c)],
    [T.stepTable, [T.quantity, T.value], stepRows(r.step, c)],
  ];
  const old = out.querySelectorAll(":scope > table");
  const first = out.firstElementChild;
  const kept = first?.textContent === summary.textContent ? first : summary;  // unchanged: not read out again
  const children = [kept, memoryBar(m, out.children[1]), ...tables.map((t, i) => patchTable(old[i], ...t))];
  children.forEach((child, i) => {  // move nothing that stays: a re-inserted node is styled and laid out anew
    const here = out.children[i];
    if (here !== child) (here ? here.replaceWith(child) : out.append(child));
  });
}

/** Each error under its input (and, for an address, listed at the top too); ``listAll``: the page just loaded one. */
function showErrors(box, form, errors, listAll) {
  for (const el of form.querySelectorAll("[aria-invalid]")) {
    el.removeAttribute("aria-invalid");
    el.removeAttribute("aria-describedby");
  }
  for (const p of form.querySelectorAll(".cs336-calc-field-error:not([hidden])")) p.hidden = true;
  const list = Object.values(errors);
  const listed = list.filter((e) => listAll || !form.elements[e.field]);  // names that are no input: at the top
  for (const e of list) {
    const el = form.elements[e.field];
    if (!el) continue;
    const p = form.querySelector(`#calc-${e.field}-error`);
    p.textContent = reason(e);
    p.hidden = false;
    el.setAttribute("aria-invalid", "true");
    el.setAttribute("aria-describedby", p.id);
  }
  if (!listed.length) {
    if (box.childNodes.length) box.replaceChildren();
    return;
  }
  const items = document.createElement("ul");
  for (const e of listed) {
    const li = document.createElement("li");
    li.textContent = message(e);
    items.append(li);
  }
  box.replaceChildren(T.invalid, items);
}

function mount(root) {
  const form = buildForm();
  const out = document.createElement("div");
  out.className = "cs336-calc-results";
  const error = document.createElement("div");
  error.className = "cs336-calc-error";
  error.setAttribute("role", "alert");
  const note = document.createElement("p");
  note.className = "cs336-calc-share";
  note.textContent = T.share;
  root.replaceChildren(error, form, out, note);  // a bad link's errors first, where the reader looks

  // The address follows the form a moment after the last change: browsers throttle a page that
  // rewrites its URL on every keystroke, and the URL is not part of the recalculation.
  let pending = null, written = null;
  function saveSoon(c) {
    clearTimeout(pending);
    pending = setTimeout(() => {
      written = toHash(c);
      try {
        history.replaceState(null, "", written);
      } catch {  // some browsers refuse replaceState on file://: replace the hash (no history entry)
        location.replace(written);
      }
    }, URL_DELAY_MS);
  }

  function show(c, errors, listAll = false) {
    showErrors(error, form, errors, listAll);
    const bad = Object.keys(errors).length > 0;
    out.classList.toggle("cs336-calc-stale", bad);  // results of other inputs than those shown: dimmed,
    out.setAttribute("aria-label", bad ? T.stale : "");  // and no verdict (fits, hidden) shown for them
    const summary = out.querySelector(".cs336-calc-summary");
    if (bad && summary) summary.replaceChildren(T.staleSummary);
    return bad;
  }

  function update({ fromUser, presetChanged = false }) {
    const typed = readForm(form);
    if (presetChanged) {  // a preset fills in its architecture, its context length and its token budget
      const own = normalize({ model: typed.model });
      const set = Object.fromEntries([...ARCHITECTURE, "seq_len", "tokens"].map((k) => [k, own[k]]));
      writeForm(form, set);
      Object.assign(typed, { seq_len: own.seq_len, tokens: own.tokens });
    }
    const { config, errors } = readValid(typed);
    if (show(config, errors)) return;  // the old results stay, dimmed, until every input is valid
    render(out, calculate(config), config);
    if (fromUser) saveSoon(config);
  }

  function load() {
    if (location.hash === written) return;  // our own write
    const { config, errors } = readHash(location.hash);
    writeForm(form, config);
    render(out, calculate(config), config);
    show(config, errors, true);
  }

  form.addEventListener("input", (e) => {
    if (ARCHITECTURE.includes(e.target.name)) form.elements.model.value = "custom";
    update({ fromUser: true, presetChanged: e.target.name === "model" && e.target.value !== "custom" });
  });
  window.addEventListener("hashchange", load);
  load();
  return { form, out, update };
}

const root = document.getElementById("cs336-calculator");
const fromHash = (hash) => NS.parseHash(hash).config;
const api = { DATA, F, calculate, normalize, serialize, fromHash, toHash, readHash, parseHash: NS.parseHash,
  message, started: STARTED, ready: null };
window.cs336Calculator = api;
if (root) {
  Object.assign(api, mount(root));
  api.ready = performance.now();
}
})(window.CS336_CALC = window.CS336_CALC || {});

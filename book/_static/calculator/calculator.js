// The calculator page: a form, its state in the URL hash, and the results of formulas.js.
// Plain ES module, no framework, nothing from the network. The page (book/<lang>/calculator.md) holds
// <div id="cs336-calculator"></div>; the language comes from <html lang>.
import { ARCHITECTURE, ConfigError, DATA, F, calculate, normalize, serialize } from "./formulas.js";

const STARTED = performance.now();  // when this module began to run (ms since navigation start)

const ZH = document.documentElement.lang.toLowerCase().startsWith("zh");
const T = ZH ? {
  model: "模型", preset: "预设模型", custom: "自定义", vocab_size: "词表大小 V", context_length: "最大上下文长度",
  num_layers: "层数 L", d_model: "模型宽度 d", num_heads: "注意力头数 H", num_kv_heads: "KV 头数（GQA）",
  d_ff: "MLP 宽度 d_ff", gated_mlp: "门控 MLP（SwiGLU）", tied_embeddings: "输入输出嵌入共享",
  bias: "偏置项", norm: "归一化", positions: "位置编码",
  norms: { layernorm: "LayerNorm", rmsnorm: "RMSNorm" }, positionsList: { learned: "可学习位置嵌入", rope: "RoPE（旋转位置编码）" },
  flash_attention: "Flash Attention（不保存 T×T 注意力矩阵）",
  training: "训练", seq_len: "序列长度 T", micro_batch: "每块 GPU 的微批次大小 B", tokens: "训练词元（token）数 D",
  hardware: "硬件", gpu: "GPU 型号", num_gpus: "GPU 数量（数据并行规模）", mfu: "MFU（0–1）",
  tf32: "fp32 矩阵乘法走 TF32 张量核心", recipe: "训练配方", precision: "精度方案", optimizer: "优化器",
  stage: "ZeRO 阶段 / FSDP 分片", recompute: "激活重计算",
  precisions: { fp32: "fp32", mixed_bf16: "bf16 混合精度训练", mixed_bf16_fp32_grads: "bf16 混合精度，fp32 梯度" },
  stages: { dp: "无分片（DDP）", zero1: "ZeRO-1：分片优化器状态", zero2: "ZeRO-2：再分片梯度",
    zero3: "ZeRO-3 / FSDP：再分片参数" },
  recomputes: { none: "不重计算", selective: "选择性重计算（注意力核心）", full: "完全重计算（只存每个块的输入）" },
  parameters: "参数量（按部分）", part: "部分", count: "参数个数",
  parts: { token_embedding: "词嵌入", position_embedding: "位置嵌入", attention: "注意力（所有层）",
    mlp: "MLP（所有层）", norms: "归一化层", lm_head: "输出层（LM head）", total: "合计",
    non_embedding: "非嵌入参数（块与归一化层）", kaplan_n: "Kaplan 的 N（仅块内矩阵）" },
  flops: "浮点运算次数与训练时间", per_token_6n: "每词元训练浮点运算次数，6N",
  per_token: "每词元训练浮点运算次数，含注意力", per_token_hardware: "每词元实际执行的浮点运算次数（含重计算）",
  hfu: "对应的硬件算力利用率（HFU）", total_6n: "总浮点运算次数，6ND", total: "总浮点运算次数，含注意力",
  peak: "稠密峰值", days_6n: "训练天数（6ND）", days: "训练天数（含注意力）", noPeak: "该卡的数据手册没有此 dtype 的稠密峰值",
  memory: "每块 GPU 的显存", kind: "项目", bytes: "字节",
  mem: { params: "参数", grads: "梯度", optimizer_state: "优化器状态（含 fp32 主权重）", activations: "激活值",
    logits: "logits（fp32，B·T·V）", total: "合计", card: "显卡显存" },
  fits: "放得下", noFit: "放不下",
  largest: "每个 ZeRO 阶段能放下的最大模型（仅训练状态，不含激活值）", maxParams: "最大参数量",
  comm: "通信", bytes_per_step: "每块 GPU 每步发送的字节数", tokens_per_step: "每步词元数",
  breakEven: "盈亏平衡：每块 GPU 每步需要的词元数", seconds_per_step: "每步通信时间（DGX H100 节点：NVLink + 8 × 400 Gb/s InfiniBand）",
  tokens_per_gpu: "每块 GPU 每步的词元数（B × T）", hidden: "通信可被计算掩盖", exposed: "通信无法被完全掩盖",
  wholeNodes: "跨节点时 GPU 数须是 8 的整数倍", seconds: "秒", invalid: "输入有误：", share: "本页地址记录了当前配置，可直接分享。",
  dense: "稠密", days_unit: "天", colon: "：", quantity: "项目", value: "数值", bar: "显存分布",
} : {
  model: "Model", preset: "Preset", custom: "custom", vocab_size: "Vocabulary V", context_length: "Context length",
  num_layers: "Layers L", d_model: "Width d", num_heads: "Heads H", num_kv_heads: "KV heads (GQA)",
  d_ff: "MLP width d_ff", gated_mlp: "Gated MLP (SwiGLU)", tied_embeddings: "Tied embeddings", bias: "Biases",
  norm: "Norm", positions: "Positions",
  norms: { layernorm: "LayerNorm", rmsnorm: "RMSNorm" }, positionsList: { learned: "learned", rope: "rotary (RoPE)" },
  flash_attention: "Flash attention (no T×T scores saved)",
  training: "Training", seq_len: "Sequence length T", micro_batch: "Micro-batch B per GPU", tokens: "Tokens D",
  hardware: "Hardware", gpu: "GPU", num_gpus: "GPUs (data-parallel size)", mfu: "MFU (0–1)",
  tf32: "fp32 matmuls on TF32 tensor cores", recipe: "Recipe", precision: "Precision", optimizer: "Optimizer",
  stage: "ZeRO stage / FSDP", recompute: "Activation recomputation",
  precisions: { fp32: "fp32", mixed_bf16: "mixed bf16", mixed_bf16_fp32_grads: "mixed bf16, fp32 gradients" },
  stages: { dp: "none (DDP)", zero1: "ZeRO-1: optimizer state", zero2: "ZeRO-2: + gradients",
    zero3: "ZeRO-3 / FSDP: + parameters" },
  recomputes: { none: "none", selective: "selective (attention core)", full: "full (block inputs only)" },
  parameters: "Parameters by part", part: "Part", count: "Parameters",
  parts: { token_embedding: "Token embedding", position_embedding: "Position embedding",
    attention: "Attention (all layers)", mlp: "MLP (all layers)", norms: "Norms", lm_head: "LM head",
    total: "Total", non_embedding: "Non-embedding (blocks and norms)", kaplan_n: "Kaplan's N (block matrices only)" },
  flops: "FLOPs and time", per_token_6n: "Training FLOPs per token, 6N",
  per_token: "Training FLOPs per token, with attention", per_token_hardware: "FLOPs per token the GPUs run (with recomputation)",
  hfu: "The hardware FLOPs utilization this MFU means (HFU)", total_6n: "Total FLOPs, 6ND",
  total: "Total FLOPs, with attention", peak: "Peak", days_6n: "Days (6ND)", days: "Days (with attention)",
  noPeak: "the datasheet gives no dense peak for this dtype",
  memory: "Memory per GPU", kind: "Kind", bytes: "Bytes",
  mem: { params: "Parameters", grads: "Gradients", optimizer_state: "Optimizer state (with fp32 master weights)",
    activations: "Activations", logits: "Logits (fp32, B·T·V)", total: "Total", card: "The card's memory" },
  fits: "fits", noFit: "does not fit",
  largest: "Largest model that fits, per ZeRO stage (training state only, no activations)", maxParams: "Parameters",
  comm: "Communication", bytes_per_step: "Bytes each GPU sends per step", tokens_per_step: "Tokens per step",
  breakEven: "Break-even tokens per GPU per step", seconds_per_step: "Seconds of communication per step (DGX H100 nodes: NVLink + 8 × 400 Gb/s InfiniBand)",
  tokens_per_gpu: "Tokens per GPU per step (B × T)", hidden: "compute can hide the communication",
  exposed: "the communication is not hidden", wholeNodes: "needs whole nodes of 8 GPUs across nodes", seconds: "s", invalid: "Check this input: ", share: "The address of this page holds the configuration: share it.",
  dense: "dense", days_unit: "days", colon: ": ", quantity: "Quantity", value: "Value", bar: "Memory per GPU against the card",
};

// Short names of the inputs in the URL hash (#model=llama2-7b&gpus=8...): calculator.URL_KEYS.
const HASH = DATA.url_keys;
const FROM_HASH = Object.fromEntries(Object.entries(HASH).map(([k, v]) => [v, k]));

const URL_DELAY_MS = 150;
const fmtInt = new Intl.NumberFormat("en-US");
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
  wrap.className = "cs336-calc-field";
  const label = document.createElement("label");
  label.htmlFor = `calc-${key}`;
  label.textContent = T[key];
  control.id = `calc-${key}`;
  control.name = key;
  if (control.type === "checkbox") wrap.append(control, label);
  else wrap.append(label, control);
  return wrap;
}

function select(key, options) {
  const s = document.createElement("select");
  for (const [value, text] of options) s.add(new Option(text, value));
  return field(key, s);
}

function number(key, attrs) {
  const input = document.createElement("input");
  input.type = "number";
  Object.assign(input, { min: 1, step: 1, required: true, ...attrs });
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

function buildForm() {
  const cards = Object.entries(DATA.accelerators).map(([key, a]) => {
    const bf16 = a.peak_flops.bf16 ? `, ${flopRate(a.peak_flops.bf16)} ${T.dense} bf16` : "";
    return [key, `${a.name} (${a.memory_bytes / GB} GB${bf16})`];
  });
  const presets = Object.entries(DATA.presets).map(([key, p]) => [key, p.name]);
  const form = document.createElement("form");
  form.className = "cs336-calc-form";
  form.addEventListener("submit", (e) => e.preventDefault());
  form.append(
    fieldset(T.model, [
      select("model", [...presets, ["custom", T.custom]]),
      ...["vocab_size", "context_length", "num_layers", "d_model", "num_heads", "num_kv_heads", "d_ff"]
        .map((k) => number(k)),
      select("norm", DATA.norms.map((k) => [k, T.norms[k]])),
      select("positions", DATA.positions.map((k) => [k, T.positionsList[k]])),
      ...["gated_mlp", "tied_embeddings", "bias"].map(checkbox),
    ]),
    fieldset(T.training, [number("seq_len"), number("micro_batch"), number("tokens")]),
    fieldset(T.hardware, [select("gpu", cards), number("num_gpus"), number("mfu", { min: 0.01, max: 1, step: 0.01 }),
      checkbox("tf32")]),
    fieldset(T.recipe, [
      select("precision", Object.keys(DATA.precisions).map((k) => [k, T.precisions[k] || k])),
      select("optimizer", Object.keys(DATA.optimizer_states).map((k) => [k, k])),
      select("stage", DATA.stages.map((k) => [k, T.stages[k]])),
      select("recompute", DATA.recompute.map((k) => [k, T.recomputes[k]])),
      checkbox("flash_attention"),
    ]),
  );
  return form;
}

function readForm(form) {
  const config = {};
  for (const key of Object.keys(DATA.defaults)) {
    const el = form.elements[key];
    if (!el) continue;
    if (el.type === "checkbox") config[key] = el.checked;
    else if (el.type === "number") config[key] = el.value.trim() === "" ? NaN : Number(el.value);
    else config[key] = el.value;
  }
  if (config.model !== "custom") for (const key of ARCHITECTURE) delete config[key];
  return config;
}

function writeForm(form, c) {
  for (const key of Object.keys(DATA.defaults)) {
    const el = form.elements[key];
    if (!el) continue;
    if (el.type === "checkbox") el.checked = c[key];
    else el.value = String(c[key]);
  }
}

function toHash(config) {
  const c = normalize(config);
  const parts = [];
  for (const [key, value] of Object.entries(c)) {
    if (c.model !== "custom" && ARCHITECTURE.includes(key)) continue;
    if (key !== "model" && value === DATA.defaults[key]) continue;
    parts.push(`${HASH[key]}=${encodeURIComponent(typeof value === "boolean" ? Number(value) : value)}`);
  }
  return `#${parts.join("&")}`;
}

/** The config a hash describes (unknown keys are ignored; values are checked by normalize). */
export function fromHash(hash) {
  const config = {};
  for (const pair of hash.replace(/^#/, "").split("&")) {
    const [name, raw] = pair.split("=");
    const key = FROM_HASH[name];
    if (!key || raw === undefined) continue;
    const value = decodeURIComponent(raw);
    const kind = typeof DATA.defaults[key];
    config[key] = kind === "boolean" ? value === "1" || value === "true" : kind === "number" ? Number(value) : value;
  }
  return config;
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
  const rows = [[T.bytes_per_step, bytes(comm.bytes_per_step)],
    [T.tokens_per_step, fmtInt.format(comm.tokens_per_step)], [T.tokens_per_gpu, fmtInt.format(perGpu)]];
  if (comm.seconds_per_step === null) return [...rows, [T.seconds_per_step, T.wholeNodes]];
  rows.push([T.seconds_per_step, `${comm.seconds_per_step.toPrecision(3)} ${T.seconds}`]);
  if (comm.breakeven_tokens_per_gpu === null) return [...rows, [T.breakEven, T.noPeak]];
  const even = comm.breakeven_tokens_per_gpu;
  const verdict = document.createElement("span");
  verdict.append(`${fmtInt.format(Math.ceil(even))} — `, badgeText(perGpu >= even, T.hidden, T.exposed));
  return [...rows, [T.breakEven, verdict]];
}

function badgeText(ok, yes, no) {
  const b = document.createElement("strong");
  b.className = ok ? "cs336-calc-fits" : "cs336-calc-nofit";
  b.textContent = ok ? yes : no;
  return b;
}

// A stacked bar of the memory per GPU, the card's capacity marked; the table beside it has the numbers.
// ``old`` (the bar drawn last time) is updated in place.
const PARTS = ["params", "grads", "optimizer_state", "activations", "logits"];
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
  const days = (d) => (d === null ? T.noPeak : `${d.toPrecision(4)} ${T.days_unit}`);
  const peak = r.time.peak_flops === null ? T.noPeak
    : `${flopRate(r.time.peak_flops)} (${T.dense} ${r.time.peak_dtype}, ${DATA.accelerators[c.gpu].name})`;
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

function mount(root) {
  const form = buildForm();
  const out = document.createElement("div");
  out.className = "cs336-calc-results";
  const error = document.createElement("p");
  error.className = "cs336-calc-error";
  error.setAttribute("role", "alert");
  const note = document.createElement("p");
  note.className = "cs336-calc-share";
  note.textContent = T.share;
  root.replaceChildren(form, error, out, note);

  // The address follows the form a moment after the last change: browsers throttle a page that
  // rewrites its URL on every keystroke, and the URL is not part of the recalculation.
  let pending = null;
  function saveSoon(config) {
    clearTimeout(pending);
    pending = setTimeout(() => history.replaceState(null, "", toHash(config)), URL_DELAY_MS);
  }

  function update({ fromUser, presetChanged = false }) {
    const config = readForm(form);
    try {
      const c = normalize(config);
      const result = calculate(config);
      if (error.textContent) error.textContent = "";
      for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
      render(out, result, c);
      if (presetChanged) writeForm(form, c);  // a preset fills in its architecture
      if (fromUser) saveSoon(config);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      error.textContent = T.invalid + e.message;
      form.elements[e.field]?.setAttribute("aria-invalid", "true");
    }
  }

  function load() {
    let c;
    try {
      c = normalize(fromHash(location.hash));
    } catch {
      c = normalize({});
    }
    writeForm(form, c);
    update({ fromUser: false });
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
const api = { DATA, F, calculate, normalize, serialize, fromHash, toHash, started: STARTED, ready: null };
window.cs336Calculator = api;
if (root) {
  Object.assign(api, mount(root));
  api.ready = performance.now();
}

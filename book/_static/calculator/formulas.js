// The calculator's arithmetic: a JavaScript copy of cs336_lec2.calculator.calculate.
//
// Why a copy and not the package itself: the page must answer within one frame (16 ms) and be usable
// within a second, offline and with no kernel; a Python runtime built for the browser is tens of MB
// and takes seconds to start. So this file repeats the package's arithmetic, each formula under the name
// of the Python function it mirrors, and tests/test_calculator_node.py runs it in Node against the package
// (every preset and over a thousand random configurations; integers exactly, floats to 1e-9). What is an
// input, its limits and choices, and the rules between inputs are not here: data.js carries them.
// Counts, FLOPs and bytes are BigInt (FLOP totals pass 2**53); floats follow Python's order of
// operations so that most agree to the last bit. The tables come from data.js, which the package
// writes (python -m cs336_lec2.calculator). An ordinary script, not an ES module: Chromium refuses
// module scripts from file://, and the book must work opened from disk. It adds its functions to
// window.CS336_CALC (data.js, loaded before it, put DATA there).
(function (NS) {
"use strict";
const DATA = NS.DATA;
const big = BigInt;

// ---- exact helpers ---------------------------------------------------------------------------------
const MAX_SAFE = big(Number.MAX_SAFE_INTEGER);

function bitLength(n) {
  return n === 0n ? 0 : n.toString(2).length;
}

/** float(Fraction(num, den)) for BigInts num >= 0, den > 0: the correctly rounded double. */
function ratioToNumber(num, den) {
  if (num % den === 0n) return Number(num / den);
  if (num <= MAX_SAFE && den <= MAX_SAFE) return Number(num) / Number(den);
  const shift = Math.max(0, 66 - (bitLength(num) - bitLength(den)));
  const scaled = num << big(shift);
  const q = scaled / den;
  const sticky = scaled % den === 0n ? 0n : 1n; // keeps round-half-even honest below the kept bits
  return Number((q << 1n) | sticky) / 2 ** (shift + 1);
}

/** Fraction(x) for a finite double x >= 0: [numerator, denominator] as BigInts. */
function doubleToRatio(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const exponent = (hi >>> 20) & 0x7ff;
  let mantissa = (big(hi & 0xfffff) << 32n) | big(lo);
  let e = -1074;
  if (exponent !== 0) {
    mantissa |= 1n << 52n;
    e = exponent - 1075;
  }
  return e >= 0 ? [mantissa << big(e), 1n] : [mantissa, 1n << big(-e)];
}

// ---- the formulas, named after the Python functions ---------------------------------------------------
// Each is a property of F so that a test can replace one (and see the cross-check fail).
const F = {
  // lm.TransformerConfig.head_dim: head_size, or d_model / num_heads when it is null
  head_dim(c) {
    return c.head_size === null ? big(c.d_model) / big(c.num_heads) : big(c.head_size);
  },
  // lm.TransformerConfig.q_dim: the width of Q and of the attention output, H·head_dim
  q_dim(c) {
    return big(c.num_heads) * F.head_dim(c);
  },
  // lm.TransformerConfig.kv_dim: the width of K (and of V)
  kv_dim(c) {
    return big(c.num_kv_heads) * F.head_dim(c);
  },
  // transformer.block_matrix_sizes
  block_matrix_sizes(c) {
    const d = big(c.d_model), q = F.q_dim(c);
    return { q: d * q, kv: 2n * d * F.kv_dim(c), o: q * d, mlp: (c.gated_mlp ? 3n : 2n) * d * big(c.d_ff) };
  },
  // transformer.parameter_count (with ParameterCount's total, non_embedding and kaplan_n)
  parameter_count(c) {
    const d = big(c.d_model), bias = c.bias ? 1n : 0n, L = big(c.num_layers), V = big(c.vocab_size);
    const kv = F.kv_dim(c), dff = big(c.d_ff), m = F.block_matrix_sizes(c);
    const attentionBias = bias * (F.q_dim(c) + 2n * kv + d);
    const mlpBias = bias * ((c.gated_mlp ? 2n : 1n) * dff + d);
    const norm = c.norm === "rmsnorm" ? d : d * (1n + bias);
    const parts = {
      token_embedding: V * d,
      position_embedding: c.positions === "learned" ? big(c.context_length) * d : 0n,
      attention: L * (m.q + m.kv + m.o + attentionBias),
      mlp: L * (m.mlp + mlpBias),
      norms: (2n * L + 1n) * norm,
      lm_head: c.tied_embeddings ? 0n : d * V,
    };
    const total = Object.values(parts).reduce((a, b) => a + b, 0n);
    const blockBiases = L * (attentionBias + mlpBias);
    return { ...parts, total, non_embedding: parts.attention + parts.mlp + parts.norms,
      kaplan_n: parts.attention + parts.mlp - blockBiases };
  },
  // transformer.matmul_parameters
  matmul_parameters(c) {
    const m = F.block_matrix_sizes(c);
    return big(c.num_layers) * (m.q + m.kv + m.o + m.mlp) + big(c.d_model) * big(c.vocab_size);
  },
  // transformer.attention_flops_per_token: the full T×T square
  attention_flops_per_token(c, seq) {
    return 4n * big(c.num_layers) * big(seq) * big(c.num_heads) * F.head_dim(c);
  },
  // transformer.training_flops_per_token(attention=True, recompute=...)
  training_flops_per_token(c, seq, recompute) {
    const forward = 2n * F.matmul_parameters(c) + F.attention_flops_per_token(c, seq);
    if (recompute === "full") {
      const d = big(c.d_model);
      // with dropout after it, the MLP's output is recomputed too: the dropout reruns on it
      const last = c.dropout ? 0n : 2n * big(c.num_layers) * d * big(c.d_ff);
      return 3n * forward + forward - 2n * d * big(c.vocab_size) - last;
    }
    if (recompute === "selective") return 3n * forward + F.attention_flops_per_token(c, seq) / 2n;
    return 3n * forward;
  },
  // flops.training_flops: 6·N·D
  training_flops(n, tokens) {
    return 6n * n * tokens;
  },
  // napkin.training_days and the same division for the FLOPs with attention
  days(flops, gpus, peak, mfu) {
    return Number(flops) / (gpus * peak * mfu) / DATA.seconds_per_day;
  },
  // distributed.zero_memory: exact [numerator, denominator] of each part, per rank
  zero_memory(psi, n, stage, recipe) {
    const level = DATA.stages.indexOf(stage);
    const shard = [level >= 3, level >= 2, level >= 1];
    const sizes = [recipe.param_bytes, recipe.grad_bytes, recipe.optimizer_bytes];
    return sizes.map((b, i) => [big(b) * psi, shard[i] ? big(n) : 1n]);
  },
  // activations.saved_values_per_token: [values, fp32 statistics] one block keeps per token
  saved_values_per_token(c, seq, recompute, flash) {
    const d = big(c.d_model), q = F.q_dim(c), kv = F.kv_dim(c), H = big(c.num_heads);
    if (recompute === "full") return [d, 0n];
    const [normValues, normStats] = c.norm === "rmsnorm" ? [2n * d, 1n] : [d, 2n];
    const qkvKept = c.positions === "rope" ? q + kv + q + 2n * kv : q + 2n * kv;
    const mlp = d + (c.gated_mlp ? 4n : 2n) * big(c.d_ff);
    const values = 2n * normValues + d + mlp, stats = 2n * normStats;
    if (recompute === "selective") return [values + qkvKept + q, stats];
    if (flash) return [values + qkvKept + q, stats + H];
    const dropped = c.dropout ? H * big(seq) : 0n;  // the dropped-out probabilities, beside the softmax output
    return [values + 3n * q + H * big(seq) + dropped + q, stats];
  },
  // activations.dropout_mask_bytes_per_token: 1-byte masks after the attention projection and the MLP, and
  // of the H·T probabilities under math attention without recomputation
  dropout_mask_bytes_per_token(c, seq, recompute, flash) {
    if (!c.dropout || recompute === "full") return 0n;
    return 2n * big(c.d_model) + (recompute === "none" && !flash ? big(c.num_heads) * big(seq) : 0n);
  },
  // activations.embedding_dropout_bytes: the embedding dropout's mask, B·T·d, once
  embedding_dropout_bytes(c, batch, seq) {
    return c.dropout ? big(batch) * big(seq) * big(c.d_model) : 0n;
  },
  // activations.activation_bytes_per_layer (stat_bytes=4)
  activation_bytes_per_layer(c, batch, seq, recompute, flash, bytesPerValue) {
    const [values, stats] = F.saved_values_per_token(c, seq, recompute, flash);
    const masks = F.dropout_mask_bytes_per_token(c, seq, recompute, flash);
    return big(batch) * big(seq) * (values * big(bytesPerValue) + stats * 4n + masks);
  },
  // activations.logits_bytes: fp32 B·T·V
  logits_bytes(c, batch, seq) {
    return big(batch) * big(seq) * big(c.vocab_size) * 4n;
  },
  // activations.segment_checkpoint_bytes
  segment_checkpoint_bytes(layers, every, layerBytes, inputBytes) {
    if (every === layers) return big(layers) * layerBytes;
    return big(Math.ceil(layers / every)) * inputBytes + big(every) * layerBytes;
  },
  // calculator_memory.largest_fsdp_unit: a unit per block, the embeddings, the final norm with the head
  largest_fsdp_unit(counts, layers) {
    const L = big(layers), norm = counts.norms / (2n * L + 1n);
    const block = (counts.attention + counts.mlp) / L + 2n * norm;
    const units = [counts.token_embedding + counts.position_embedding, block, counts.lm_head + norm];
    return units.reduce((a, b) => (b > a ? b : a));
  },
  // calculator_memory.transient_bytes: the logits' gradient, FSDP's gathered + prefetched unit, DDP's
  // buckets, the CUDA context
  transient_bytes(c, counts, recipe, logits) {
    const gathered = c.stage === "zero3" ? 2n * F.largest_fsdp_unit(counts, c.num_layers) * big(recipe.param_bytes) : 0n;
    const buckets = c.stage === "dp" ? counts.total * big(recipe.grad_bytes) : 0n;
    return { logits_grad: logits, gathered, ddp_buckets: buckets, cuda_context: big(DATA.cuda_context_bytes) };
  },
  // napkin.max_trainable_params: floor(Fraction(memory) / Fraction(bytes_per_param)), bytes a double
  max_trainable_params(memoryBytes, bytesPerParam) {
    const [pn, pd] = doubleToRatio(bytesPerParam);
    const [mn, md] = doubleToRatio(memoryBytes);
    return (mn * pd) / (md * pn);
  },
  // distributed.step_communication: gathers in the weights' width, reductions in the gradients'
  step_communication(psi, n, stage, bytesPerValue, reduceBytes) {
    const ring = (width) => ((n - 1) / n) * Number(psi * big(width));
    const gather = stage === "dp" ? reduceBytes : bytesPerValue, gathers = stage === "zero3" ? 2 : 1;
    return gathers * ring(gather) + ring(reduceBytes);
  },
  // distributed.nccl.algorithm_seconds: one call by one row of NCCL's tuning table (null where NCCL lacks it)
  algorithm_seconds(a, collective, payload, n, nodes, k) {
    const allReduce = collective === "all_reduce", g = Math.floor(n / nodes);
    const bus = nodes === 1 ? k.nvlink : Math.min(k.nvlink, k.nics_per_node * k.nic);
    let rate = bus * (nodes === 1 ? a.share : a.share_across);
    if (a.ll_cap) rate = Math.min(rate, DATA.nccl_ll_max_bus[Math.min(nodes, 3) - 1]);
    rate *= F.ramp(a, payload, k);
    if (a.kind === "ring") {
      const steps = (allReduce ? 2 : 1) * (n - 1);
      const net = nodes === 1 ? 0 : allReduce ? 2 * nodes : nodes - 1;
      let latency = a.base + (steps - net) * a.nvlink_hop + net * a.net_hop;
      if (allReduce && nodes > 1 && a.name === "ring/Simple") latency *= DATA.nccl_ring_plateau;
      const sent = (((allReduce ? 2 : 1) * (n - 1)) / n) * payload;
      return k.latency * latency + sent / rate;
    }
    if (!allReduce) return null;
    if (a.kind === "tree") {
      const hops = (g - 1) * a.nvlink_hop + Math.floor(Math.log2(nodes)) * a.net_hop;
      return k.latency * (a.base + 2 * hops) + payload / (0.5 * rate);
    }
    if (nodes > 1 || n !== k.gpus_per_node || !k.nvls) return null;
    return k.latency * (a.base + a.nvlink_hop) + payload / (k.nvls * F.ramp(a, payload, k));
  },
  // distributed.nccl.ramp: the share of the bandwidth a call of this size gets (1 for LL, or with latency 0)
  ramp(a, payload, k) {
    if (a.ll_cap || payload <= 0 || !k.latency) return 1;
    return 1 / (1 + Math.sqrt(DATA.nccl_ramp_bytes[a.kind] / payload));
  },
  // distributed.nccl.fastest: NCCL's choice, the fastest row (seconds only)
  fastest(collective, payload, n, nodes, k) {
    if (n === 1) return 0;
    let best = Infinity;
    for (const a of DATA.nccl_algorithms) {
      const t = F.algorithm_seconds(a, collective, payload, n, nodes, k);
      if (t !== null && t < best) best = t;
    }
    return best;
  },
  // distributed.cluster.collective_seconds: a first bucket, full buckets, the remainder, each NCCL's fastest
  collective_seconds(collective, payload, n, bucket, first, k) {
    const nodes = Math.max(1, Math.floor(n / k.gpus_per_node));
    const call = (size) => F.fastest(collective, size, n, nodes, k);
    const total = Number(payload);
    if (bucket === null) return call(total);
    const head = first === null ? 0 : Math.min(total, first);
    const rest = total - head, full = Math.floor(rest / bucket), last = rest - full * bucket;
    const seconds = full * call(bucket) + (last > 0 ? call(last) : 0) + (head > 0 ? call(head) : 0);
    return total > 0 ? seconds : call(0);
  },
  // ZeRO-3 / FSDP: each collective in ``units`` equal calls, one per wrapped unit
  step_seconds(stage, psi, n, bytesPerValue, bucket, first, k, reduceBytes, units) {
    const calls = stage === "zero3" ? units : 1;
    const call = (collective, width) =>
      calls * F.collective_seconds(collective, Number(psi * big(width)) / calls, n, bucket, first, k);
    if (stage === "zero3") return 2 * call("all_gather", bytesPerValue) + call("reduce_scatter", reduceBytes);
    if (stage === "dp" || reduceBytes === bytesPerValue) return call("all_reduce", reduceBytes);
    return call("reduce_scatter", reduceBytes) + call("all_gather", bytesPerValue);
  },
  breakeven_tokens(seconds, psi, rate, flopsPerParam) {
    return (seconds * rate) / (flopsPerParam * Number(psi));
  },
};

/** calculator.reduce_width: bytes per value a gradient reduction moves (4 in fp32, else the gradients'). */
function reduceWidth(c) {
  return c.reduce_fp32 ? 4 : DATA.precisions[c.precision].grad;
}

/** calculator._cluster_time: a step's collectives in seconds and the tokens per GPU that hide them. */
function clusterTime(c, n, peak) {
  const k = DATA.clusters[c.gpu];
  if (!k || (c.num_gpus > k.gpus_per_node && c.num_gpus % k.gpus_per_node)) {
    return { seconds_per_step: null, breakeven_tokens_per_gpu: null };
  }
  const dp = c.stage === "dp";  // DDP: a first 1 MiB bucket, then 25 MiB ones
  const bucket = dp ? DATA.ddp_bucket_bytes : null, first = dp ? DATA.ddp_first_bucket_bytes : null;
  const p = DATA.precisions[c.precision];  // gathers move the weights' width, reductions the gradients'
  const node = c.nvls ? k : { ...k, nvls: 0 };  // NVLS off: NCCL_NVLS_ENABLE=0, rings and trees only
  const seconds = F.step_seconds(c.stage, n, c.num_gpus, p.param, bucket, first, node, reduceWidth(c), c.num_layers + 2);
  const hide = c.stage === "zero3" ? 6 : 4;
  const even = peak === null ? null : F.breakeven_tokens(seconds, n, peak * c.mfu, hide);
  return { seconds_per_step: seconds, breakeven_tokens_per_gpu: even };
}

// ---- the configuration ------------------------------------------------------------------------------
// Which inputs exist, their kinds, limits and choices, the rules between them and the order of the checks
// all come from data.js (DATA.schema: calculator.FIELDS, RULES and CHECKS); this file only evaluates them.
const SCHEMA = DATA.schema;
const FIELDS = Object.fromEntries(SCHEMA.fields.map((f) => [f.key, f]));
const ARCHITECTURE = SCHEMA.architecture;

class ConfigError extends Error {
  /** A bad input: ``field`` its key, ``code`` what is wrong (strings.js words it per language), ``params``. */
  constructor(field, code, params = {}) {
    super(`${field}: ${code} ${JSON.stringify(params)}`);
    Object.assign(this, { field, code, params });
  }
}

/** calculator._check_value: ``v`` as the input ``f`` takes it (tokens as a Number), or a ConfigError. */
function checkValue(f, v) {
  const max = f.maximum, min = f.minimum;
  if (f.kind === "choice") {
    if (!f.options.includes(v)) throw new ConfigError(f.key, "choice", { options: f.options.join(", ") });
  } else if (f.kind === "bool") {
    if (typeof v !== "boolean") throw new ConfigError(f.key, "bool");
  } else if (v === null && f.optional) {
    return v;
  } else if (f.kind === "int") {
    if (!Number.isSafeInteger(v) || v < min || v > max) throw new ConfigError(f.key, "int", { max });
  } else if (f.kind === "tokens") {  // a BigInt from a long address, or a Number
    const whole = typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v));
    if (!whole || v < min || v > max) throw new ConfigError(f.key, "int", { max });
    return Number(v);
  } else if (!(typeof v === "number" && v >= min && v <= max)) {  // real
    throw new ConfigError(f.key, "real", { min, max });
  }
  return v;
}

// The quantities rules compare besides the inputs themselves (calculator._quantity).
const QUANTITY = {
  head_dim: (c) => c.head_size || Math.floor(c.d_model / c.num_heads),
  hfu: (c) => (c.mfu * Number(F.training_flops_per_token(c, c.seq_len, c.recompute)))
    / Number(F.training_flops_per_token(c, c.seq_len, "none")),
};
const RELATION = {
  divides: (a, b) => b % a === 0, multiple_of: (a, b) => a % b === 0, even: (a) => a % 2 === 0,
  at_most: (a, b) => a <= b,
};
const operand = (c, name) => (typeof name !== "string" ? name : name in QUANTITY ? QUANTITY[name](c) : c[name]);

/** calculator._check_rule: a ConfigError under ``rule.field`` when the rule applies to ``c`` and fails. */
function checkRule(code, rule, c) {
  if (Object.entries(rule.when).some(([key, v]) => c[key] !== v)) return;
  if (RELATION[rule.relation](operand(c, rule.left), operand(c, rule.right))) return;
  const params = Object.fromEntries(Object.entries(rule.params).map(([name, o]) => [name, operand(c, o)]));
  throw new ConfigError(rule.field, code, params);
}

/** The preset's own seq_len and published tokens (calculator.preset_defaults). */
function presetDefaults(model) {
  return model in DATA.presets ? DATA.presets[model].sets : {};
}

/** calculator.normalize: the config over the defaults, checked in the schema's order; a preset sets the architecture. */
function normalize(config) {
  for (const key of Object.keys(config)) {
    if (!(key in DATA.defaults)) throw new ConfigError(key, "unknown");
  }
  const model = "model" in config ? config.model : DATA.defaults.model;
  checkValue(FIELDS.model, model);
  const c = { ...DATA.defaults, ...presetDefaults(model), ...config };
  if (c.model !== "custom") {
    for (const key of ARCHITECTURE) c[key] = DATA.presets[c.model][key];
  }
  for (const step of SCHEMA.checks) {
    if (step in SCHEMA.rules) checkRule(step, SCHEMA.rules[step], c);
    else c[step] = checkValue(FIELDS[step], c[step]);
  }
  return c;
}

/** calculator.matmul_dtype: the peak-table key of the recipe's matmuls. */
function matmulDtype(c) {
  const key = DATA.matmul_dtype[c.precision];
  const peaks = DATA.accelerators[c.gpu].peak_flops;
  return key === "fp32" && c.tf32 && "tf32" in peaks ? "tf32" : key;
}

/** calculator.calculate: every quantity the page shows (BigInt for integers, Number for floats). */
function calculate(config) {
  const c = normalize(config);
  const counts = F.parameter_count(c);
  const n = counts.total, tokens = big(c.tokens), gpus = c.num_gpus, seq = c.seq_len, batch = c.micro_batch;

  const card = DATA.accelerators[c.gpu];
  const dtype = matmulDtype(c);
  const peak = dtype in card.peak_flops ? card.peak_flops[dtype] : null;
  const perToken = F.training_flops_per_token(c, seq, "none");
  const hardware = F.training_flops_per_token(c, seq, c.recompute);
  const total = perToken * tokens;
  const flops = { per_token_6n: F.training_flops(n, 1n), per_token: perToken, per_token_hardware: hardware,
    total_6n: F.training_flops(n, tokens), total };
  const time = { peak_dtype: dtype, peak_flops: peak, hfu: (c.mfu * Number(hardware)) / Number(perToken),
    days_6n: peak === null ? null : F.days(flops.total_6n, gpus, peak, c.mfu),
    days: peak === null ? null : F.days(total, gpus, peak, c.mfu) };

  const p = DATA.precisions[c.precision];
  const recipe = { param_bytes: p.param, grad_bytes: p.grad,
    optimizer_bytes: p.master + DATA.optimizer_states[c.optimizer] * p.state };
  const [params, grads, state] = F.zero_memory(n, gpus, c.stage, recipe).map(([a, b]) => ratioToNumber(a, b));
  const layer = F.activation_bytes_per_layer(c, batch, seq, c.recompute, c.flash_attention, p.activation);
  let activations = big(c.num_layers) * layer;
  if (c.recompute === "full") {
    const full = F.activation_bytes_per_layer(c, batch, seq, "none", c.flash_attention, p.activation);
    activations = F.segment_checkpoint_bytes(c.num_layers, 1, full, layer);
  }
  activations += F.embedding_dropout_bytes(c, batch, seq);  // once, not per layer
  const logits = F.logits_bytes(c, batch, seq);
  const extra = F.transient_bytes(c, counts, recipe, logits);
  const sum = params + grads + state + Number(activations) + Number(logits)
    + Number(extra.logits_grad + extra.gathered + extra.ddp_buckets + extra.cuda_context);
  const memory = { params, grads, optimizer_state: state, activations, logits, ...extra, total: sum,
    card: big(card.memory_bytes),
    fits: sum <= card.memory_bytes };

  const largest = {};
  for (const stage of DATA.stages) {
    const perGpu = F.zero_memory(big(gpus), gpus, stage, recipe).reduce((acc, [a, b]) => acc + a / b, 0n);
    largest[stage] = F.max_trainable_params(card.memory_bytes, ratioToNumber(perGpu, big(gpus)));
  }
  const communication = { bytes_per_step: F.step_communication(n, gpus, c.stage, recipe.param_bytes,
    reduceWidth(c)),
    tokens_per_step: big(gpus) * big(batch) * big(seq), ...clusterTime(c, n, peak) };
  // an optimizer step: grad_accum micro-batches on every GPU, at the MFU (which counts every overhead)
  const globalTokens = big(gpus) * big(batch) * big(c.grad_accum) * big(seq);
  const rate = peak === null ? null : gpus * peak * c.mfu;
  const step = { global_batch: big(gpus) * big(batch) * big(c.grad_accum), global_batch_tokens: globalTokens,
    steps: (tokens + globalTokens - 1n) / globalTokens,
    seconds: rate === null ? null : Number(perToken * globalTokens) / rate,
    tokens_per_second: rate === null ? null : rate / Number(perToken) };
  const parameters = counts;
  return { parameters, flops, time, memory, largest_model: largest, communication, step };
}

/** A JSON-able copy of a result: BigInts as {"int": "<decimal>"} (for the cross-check with Python). */
function serialize(value) {
  if (typeof value === "bigint") return { int: value.toString() };
  if (Array.isArray(value)) return value.map(serialize);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, serialize(v)]));
  }
  return value;
}

Object.assign(NS, { ARCHITECTURE, FIELDS, ConfigError, F, calculate, normalize, presetDefaults, serialize, matmulDtype,
  ratioToNumber, doubleToRatio });
})(window.CS336_CALC = window.CS336_CALC || {});

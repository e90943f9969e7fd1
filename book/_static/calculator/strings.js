// Every word the calculator shows, in English and in Chinese (the page's <html lang> picks one), and
// its error messages: a bad input is named by its label, never by its variable name. An ordinary
// script: it adds T (the words), label(field) and message(error) to window.CS336_CALC.
(function (NS) {
"use strict";
const ZH = document.documentElement.lang.toLowerCase().startsWith("zh");
const fmtInt = new Intl.NumberFormat("en-US");
const T = ZH ? {
  model: "模型", preset: "预设模型", custom: "自定义", vocab_size: "词表大小 V", context_length: "最大上下文长度",
  num_layers: "层数 L", d_model: "模型宽度 d", num_heads: "注意力头数 H", num_kv_heads: "KV 头数（GQA）",
  d_ff: "MLP 宽度 d_ff", head_size: "每个头的维度（留空则为 d / H）", dropout: "dropout 掩码（GPT-2、GPT-3）", gated_mlp: "门控 MLP（SwiGLU）", tied_embeddings: "输入输出嵌入共享",
  bias: "偏置项", norm: "归一化", positions: "位置编码",
  norms: { layernorm: "LayerNorm", rmsnorm: "RMSNorm" }, positionsList: { learned: "可学习位置嵌入", rope: "RoPE（旋转位置编码）" },
  flash_attention: "Flash Attention（不保存 T×T 注意力矩阵）",
  training: "训练", seq_len: "序列长度 T", micro_batch: "每块 GPU 的微批次大小 B", tokens: "训练词元（token）数 D",
  hardware: "硬件", gpu: "GPU 型号", num_gpus: "GPU 数量（数据并行规模）", mfu: "MFU（0–1）",
  tf32: "fp32 矩阵乘法走 TF32 张量核心", nvls: "NVLink SHARP（NVLS）：NVSwitch 做 all-reduce 的归约",
  reduce_fp32: "梯度归约用 fp32（autocast + DDP、FSDP2 的 reduce_dtype、Megatron）",
  noNvls: "不用 NVLS（只用 ring 和 tree）", recipe: "训练配方", precision: "精度方案", optimizer: "优化器",
  optimizers: { sgd: "SGD", sgd_momentum: "带动量的 SGD", adagrad: "AdaGrad", adam: "Adam", adamw: "AdamW" },
  stage: "ZeRO 阶段 / FSDP 分片", recompute: "激活重计算",
  precisions: { fp32: "fp32", mixed_bf16: "bf16 混合精度训练", mixed_bf16_fp32_grads: "bf16 混合精度，fp32 梯度" },
  stages: { dp: "无分片（DDP）", zero1: "ZeRO-1：分片优化器状态", zero2: "ZeRO-2：再分片梯度",
    zero3: "ZeRO-3 / FSDP：再分片参数" },
  recomputes: { none: "不重计算", selective: "选择性重计算（注意力核心）", full: "完全重计算（只存每个块的输入）" },
  parameters: "参数量（按部分）", part: "部分", count: "参数个数",
  parts: { token_embedding: "词嵌入", position_embedding: "位置嵌入", attention: "注意力（所有层）",
    mlp: "MLP（所有层）", norms: "归一化层", lm_head: "语言模型输出头", total: "合计",
    non_embedding: "非嵌入参数（块与归一化层）", kaplan_n: "Kaplan 的 N（仅块内矩阵）" },
  flops: "浮点运算次数与训练时间", per_token_6n: "每词元训练浮点运算次数，6N",
  per_token: "每词元训练浮点运算次数，含注意力", per_token_hardware: "每词元实际执行的浮点运算次数（含重计算）",
  hfu: "对应的硬件算力利用率（HFU）", total_6n: "总浮点运算次数，6ND", total: "总浮点运算次数，含注意力",
  peak: "稠密峰值", days_6n: "训练天数（6ND）", days: "训练天数（含注意力）", noPeak: "该卡的数据手册没有此数据类型的稠密峰值",
  memory: "每块 GPU 的显存", kind: "项目", bytes: "字节",
  mem: { params: "参数", grads: "梯度", optimizer_state: "优化器状态（含 fp32 主权重）", activations: "激活值",
    logits: "logits（fp32，B·T·V）", logits_grad: "logits 的梯度（fp32，B·T·V）",
    gathered: "FSDP 经 all-gather 得到的完整单元（当前单元与预取的下一个）",
    ddp_buckets: "DDP 梯度桶（梯度的第二份副本）",
    cuda_context: "CUDA 上下文（驱动状态与已加载的内核，分配器之外；按 Hugging Face 在 V100 上的实测 1,343 MiB）",
    total: "合计", card: "显卡显存" },
  fits: "放得下", noFit: "放不下",
  largest: "每个 ZeRO 阶段能放下的最大模型（仅训练状态，不含激活值）", maxParams: "最大参数量",
  comm: "通信", bytes_per_step: "每块 GPU 每步发送的字节数", tokens_per_step: "每步词元数",
  breakEven: "每块 GPU 每步掩盖通信所需的词元数", seconds_per_step: "每个微批次步的通信时间", commDtypes: "all-gather / 归约（reduce-scatter、all-reduce）的数据类型", network: "网络", perDirection: "（每个方向）", tokensPerSecond: "词元/秒", tokensWord: "词元",
  noNetwork: "本书没有这种卡的 8 卡 NVSwitch 节点模型（PCIe 卡、NVL 双卡、消费级显卡、V100）",
  tokens_per_gpu: "每块 GPU 每步的词元数（B × T）", hidden: "通信可被计算掩盖", exposed: "通信无法被完全掩盖",
  wholeNodes: "跨节点时 GPU 数须是 8 的整数倍", seconds: "秒", share: "本页地址记录了当前配置，可直接分享。",
  dense: "稠密", days_unit: "天", colon: "：", sep: "；", paren: (s) => `（${s}）`, comma: "，", quantity: "项目", value: "数值", bar: "显存分布",
  invalid: "输入有误，以下各项未采用（其余输入照常计算，结果暂以灰色显示）：", stale: "结果已过期",
  staleSummary: "有输入项有误（见该项下方的红字）：下面灰色的结果属于上一个有效配置，改正后才会更新。",
  mini: "训练计算器", open: "在完整的训练计算器中打开这个配置", miniParams: "参数量",
  miniDays: "训练时间", miniMemory: "每块 GPU 的显存", miniComm: "每步通信时间", miniHint: "可在完整页面中修改任一输入",
  grad_accum: "梯度累积步数", stepTable: "每个优化器步", global_batch: "全局批大小（序列数 = GPU 数 × B × 累积步数）",
  global_batch_tokens: "全局批大小（词元数）", steps: "训练 D 个词元需要的优化器步数",
  step_seconds: "每步时间（按 MFU 计）", tokens_per_second: "吞吐量（词元/秒，全部 GPU）",
  tokens_per_second_gpu: "每块 GPU 的吞吐量（词元/秒）",
  validation: {
    caption: "计算器与已发表的训练实测对照（数字均由本书的辅助包根据来源中的配置算出）", run: "训练配置（点击在上方计算器中打开）",
    published: "已发表的数值", calculator: "计算器", ratio: "计算器 / 已发表", source: "来源",
    mfuAt: "MFU {mfu}，每块 GPU {tps} 词元/秒", embedding: "像 torchtitan 当时那样把词嵌入计入 6N 时为 {mfu}",
    tps: "词元/秒/GPU", stated: "文中给出 MFU 为 {lo}–{hi}", needs: "需要 MFU {mfu}",
    bracket: "显存 {full}（完全重计算）到 {none}（不重计算）", drop: "8 → 128 块 GPU 时减少 {calc}（已发表：{pub}）",
    ofDrop: "（显存减少量）", hours: "GPU 小时", at: "MFU 为 {mfu} 时需 {hours} GPU 小时",
    implied: "已发表的 GPU 小时数对应 MFU {mfu}",
  },
  errors: {
    int: "须为 1 到 {max} 之间的整数", bool: "须为 1 或 0（true 或 false）", choice: "须为以下之一：{options}",
    kv: "须能整除注意力头数（{heads}）", heads: "须是注意力头数（{heads}）的整数倍，或者填写每个头的维度",
    rope: "旋转位置编码要求每个头的维度（所填的头维度，或宽度 ÷ 头数）为偶数",
    context: "使用可学习位置嵌入时不能超过最大上下文长度（{ctx}）", real: "须在 {min} 到 {max} 之间",
    hfu: "在当前的激活重计算策略下，GPU 须达到峰值的 {hfu} 倍，硬件算力利用率（HFU）超过 1",
    unknown: "不是本计算器的输入项", twice: "出现了两次", digits: "须用十进制数字书写（最多 15 位）",
    decimal: "须为十进制小数，例如 0.4", tokensSyntax: "须为整数，用十进制数字书写，也可写成 2e12 的形式",
  },
} : {
  model: "Model", preset: "Preset", custom: "custom", vocab_size: "Vocabulary V", context_length: "Context length",
  num_layers: "Layers L", d_model: "Width d", num_heads: "Heads H", num_kv_heads: "KV heads (GQA)",
  d_ff: "MLP width d_ff", head_size: "Head size (empty: d / H)", dropout: "Dropout masks (GPT-2, GPT-3)", gated_mlp: "Gated MLP (SwiGLU)", tied_embeddings: "Tied embeddings", bias: "Biases",
  norm: "Norm", positions: "Positions",
  norms: { layernorm: "LayerNorm", rmsnorm: "RMSNorm" }, positionsList: { learned: "learned", rope: "rotary (RoPE)" },
  flash_attention: "Flash attention (no T×T scores saved)",
  training: "Training", seq_len: "Sequence length T", micro_batch: "Micro-batch B per GPU", tokens: "Tokens D",
  hardware: "Hardware", gpu: "GPU", num_gpus: "GPUs (data-parallel size)", mfu: "MFU (0–1)",
  tf32: "fp32 matmuls on TF32 tensor cores", nvls: "NVLink SHARP (NVLS): the NVSwitch reduces all-reduces",
  reduce_fp32: "Gradient reductions in fp32 (autocast + DDP, FSDP2's reduce_dtype, Megatron)",
  noNvls: "no NVLS (rings and trees only)", recipe: "Recipe", precision: "Precision", optimizer: "Optimizer",
  optimizers: { sgd: "SGD", sgd_momentum: "SGD with momentum", adagrad: "AdaGrad", adam: "Adam", adamw: "AdamW" },
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
    activations: "Activations", logits: "Logits (fp32, B·T·V)", logits_grad: "Logits' gradient (fp32, B·T·V)",
    gathered: "FSDP's gathered units (the current one and the prefetched next)",
    ddp_buckets: "DDP's gradient buckets (a second copy of the gradients)",
    cuda_context: "CUDA context (driver state and loaded kernels, outside the allocator; 1,343 MiB as Hugging Face measured on a V100)",
    total: "Total", card: "The card's memory" },
  fits: "fits", noFit: "does not fit",
  largest: "Largest model that fits, per ZeRO stage (training state only, no activations)", maxParams: "Parameters",
  comm: "Communication", bytes_per_step: "Bytes each GPU sends per step", tokens_per_step: "Tokens per step",
  breakEven: "Break-even tokens per GPU per step", seconds_per_step: "Seconds of communication per micro-batch step", commDtypes: "Dtype of the all-gathers / the reductions", network: "Network", perDirection: " (each direction)", tokensPerSecond: "tokens/s", tokensWord: "tokens",
  noNetwork: "the book models no 8-GPU NVSwitch node for this card (PCIe, NVL pairs, consumer cards, V100)",
  tokens_per_gpu: "Tokens per GPU per step (B × T)", hidden: "compute can hide the communication",
  exposed: "the communication is not hidden", wholeNodes: "needs whole nodes of 8 GPUs across nodes", seconds: "s", share: "The address of this page holds the configuration: share it.",
  dense: "dense", days_unit: "days", colon: ": ", sep: "; ", paren: (s) => ` (${s})`, comma: ", ", quantity: "Quantity", value: "Value", bar: "Memory per GPU against the card",
  invalid: "These inputs were not used (the others are; the results stay grey until all are valid):",
  stale: "results out of date",
  staleSummary: "An input is invalid (see the red note under it): the grey results below are of the last valid configuration until it is fixed.",
  mini: "Training calculator", open: "Open this configuration in the full calculator",
  miniParams: "Parameters", miniDays: "Training time", miniMemory: "Memory per GPU", miniComm: "Communication per step",
  miniHint: "change any input on the full page",
  grad_accum: "Gradient accumulation steps", stepTable: "Per optimizer step",
  global_batch: "Global batch (sequences = GPUs × B × accumulation)", global_batch_tokens: "Global batch (tokens)",
  steps: "Optimizer steps to train on D tokens", step_seconds: "Time per step (at the MFU)",
  tokens_per_second: "Throughput (tokens/s, all GPUs)", tokens_per_second_gpu: "Throughput per GPU (tokens/s)",
  validation: {
    caption: "The calculator against published runs (every number computed by the package from the source's configuration)",
    run: "Run (opens it in the calculator above)", published: "Published", calculator: "Calculator",
    ratio: "Calculator / published", source: "Source", mfuAt: "MFU {mfu} at {tps} tokens/s/GPU",
    embedding: "{mfu} counting the embedding in 6N, as torchtitan did", tps: "tokens/s/GPU",
    stated: "stated MFU {lo}–{hi}", needs: "needs MFU {mfu}",
    bracket: "memory {full} (full recomputation) to {none} (none)", drop: "8 → 128 GPUs: {calc} less (published: {pub})",
    ofDrop: " (memory drop)", hours: "GPU-hours", at: "{hours} GPU-hours at MFU {mfu}",
    implied: "the published hours mean MFU {mfu}",
  },
  errors: {
    int: "must be a whole number from 1 to {max}", bool: "must be 1 or 0 (true or false)",
    choice: "must be one of: {options}", kv: "must divide the number of heads ({heads})",
    heads: "must be a multiple of the number of heads ({heads}), or give the head size",
    rope: "rotary positions need an even head size (the head size given, or width / heads)",
    context: "must be at most the context length ({ctx}) with learned positions",
    real: "must be between {min} and {max}",
    hfu: "with this recomputation the GPUs would run at {hfu} times their peak: HFU above 1",
    unknown: "is not an input of this calculator", twice: "is given twice",
    digits: "must be written in decimal digits (at most 15)", decimal: "must be a decimal number such as 0.4",
    tokensSyntax: "must be a whole number, in decimal digits or like 2e12",
  },
};

/** The label of a field (its key when it is no input of the calculator, e.g. a mistyped link). */
function label(field) {
  return typeof T[field] === "string" ? T[field] : `“${field}”`;
}

/** What is wrong with an input (ConfigError), in the page's language: "must be a whole number from 1 to 1,048,576". */
function reason(error) {
  return T.errors[error.code].replace(/\{(\w+)\}/g, (_, name) => {
    const v = error.params[name];
    if (typeof v !== "number") return String(v);
    return Number.isInteger(v) ? fmtInt.format(v) : String(Number(v.toFixed(3)));
  });
}

/** An error with its input's label: "GPUs: must be a whole number from 1 to 1,048,576". */
function message(error) {
  return `${label(error.field)}${T.colon}${reason(error)}`;
}

/** Days as the book prints them: whole days from 100 on ("3,180", "152"), else three digits ("7.2", "0.0312"). */
function fmtDays(d) {
  if (d >= 100) return fmtInt.format(Math.round(d));
  return d >= 1e-4 ? String(Number(d.toPrecision(3))) : d.toExponential(2).replace("e+", "e");
}

Object.assign(NS, { ZH, T, label, message, reason, fmtDays, fmtInt });
})(window.CS336_CALC = window.CS336_CALC || {});

// Written by `python -m cs336_lec2.calculator_page` from the package's tables; do not edit by hand
// (tests/test_calculator.py fails when this file and the package differ).
(window.CS336_CALC = window.CS336_CALC || {}).DATA = {
 "schema": {
  "fields": [
   {
    "key": "model",
    "url": "model",
    "kind": "choice",
    "group": "model",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": [
     "gpt2-small",
     "gpt2-medium",
     "gpt2-large",
     "gpt2-xl",
     "llama2-7b",
     "llama2-13b",
     "llama2-70b",
     "llama3-8b",
     "gemma7b",
     "custom"
    ]
   },
   {
    "key": "vocab_size",
    "url": "vocab",
    "kind": "int",
    "group": "model",
    "maximum": 16777216,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "context_length",
    "url": "ctx",
    "kind": "int",
    "group": "model",
    "maximum": 16777216,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "num_layers",
    "url": "layers",
    "kind": "int",
    "group": "model",
    "maximum": 4096,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "d_model",
    "url": "d",
    "kind": "int",
    "group": "model",
    "maximum": 262144,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "num_heads",
    "url": "heads",
    "kind": "int",
    "group": "model",
    "maximum": 16384,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "num_kv_heads",
    "url": "kv",
    "kind": "int",
    "group": "model",
    "maximum": 16384,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "d_ff",
    "url": "dff",
    "kind": "int",
    "group": "model",
    "maximum": 1048576,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "head_size",
    "url": "hs",
    "kind": "int",
    "group": "model",
    "maximum": 16384,
    "minimum": 1,
    "optional": true,
    "options": []
   },
   {
    "key": "norm",
    "url": "norm",
    "kind": "choice",
    "group": "model",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": [
     "layernorm",
     "rmsnorm"
    ]
   },
   {
    "key": "positions",
    "url": "pos",
    "kind": "choice",
    "group": "model",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": [
     "learned",
     "rope"
    ]
   },
   {
    "key": "gated_mlp",
    "url": "gated",
    "kind": "bool",
    "group": "model",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "tied_embeddings",
    "url": "tied",
    "kind": "bool",
    "group": "model",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "bias",
    "url": "bias",
    "kind": "bool",
    "group": "model",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "dropout",
    "url": "drop",
    "kind": "bool",
    "group": "model",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "seq_len",
    "url": "seq",
    "kind": "int",
    "group": "training",
    "maximum": 16777216,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "micro_batch",
    "url": "batch",
    "kind": "int",
    "group": "training",
    "maximum": 65536,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "grad_accum",
    "url": "accum",
    "kind": "int",
    "group": "training",
    "maximum": 65536,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "tokens",
    "url": "tokens",
    "kind": "tokens",
    "group": "training",
    "maximum": 1000000000000000,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "gpu",
    "url": "gpu",
    "kind": "choice",
    "group": "hardware",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": [
     "t4",
     "v100-sxm2-16gb",
     "v100-sxm2-32gb",
     "v100-pcie-16gb",
     "a10",
     "a10g",
     "l4",
     "l40s",
     "a100-sxm-40gb",
     "a100-sxm-80gb",
     "a100-pcie-40gb",
     "a100-pcie-80gb",
     "h100-sxm",
     "h100-pcie",
     "h100-nvl",
     "h200",
     "h200-nvl",
     "b200",
     "rtx-3090",
     "rtx-4090"
    ]
   },
   {
    "key": "num_gpus",
    "url": "gpus",
    "kind": "int",
    "group": "hardware",
    "maximum": 1048576,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "mfu",
    "url": "mfu",
    "kind": "real",
    "group": "hardware",
    "maximum": 1,
    "minimum": 0.001,
    "optional": false,
    "options": []
   },
   {
    "key": "tf32",
    "url": "tf32",
    "kind": "bool",
    "group": "hardware",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "nvls",
    "url": "nvls",
    "kind": "bool",
    "group": "hardware",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "precision",
    "url": "prec",
    "kind": "choice",
    "group": "recipe",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": [
     "fp32",
     "mixed_bf16",
     "mixed_bf16_fp32_grads"
    ]
   },
   {
    "key": "optimizer",
    "url": "opt",
    "kind": "choice",
    "group": "recipe",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": [
     "sgd",
     "sgd_momentum",
     "adagrad",
     "adam",
     "adamw"
    ]
   },
   {
    "key": "stage",
    "url": "zero",
    "kind": "choice",
    "group": "recipe",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": [
     "dp",
     "zero1",
     "zero2",
     "zero3"
    ]
   },
   {
    "key": "recompute",
    "url": "recomp",
    "kind": "choice",
    "group": "recipe",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": [
     "none",
     "selective",
     "full"
    ]
   },
   {
    "key": "flash_attention",
    "url": "flash",
    "kind": "bool",
    "group": "recipe",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": []
   },
   {
    "key": "reduce_fp32",
    "url": "rfp32",
    "kind": "bool",
    "group": "recipe",
    "maximum": null,
    "minimum": 1,
    "optional": false,
    "options": []
   }
  ],
  "rules": {
   "kv": {
    "field": "num_kv_heads",
    "relation": "divides",
    "left": "num_kv_heads",
    "right": "num_heads",
    "when": {},
    "params": {
     "heads": "num_heads"
    }
   },
   "heads": {
    "field": "d_model",
    "relation": "multiple_of",
    "left": "d_model",
    "right": "num_heads",
    "when": {
     "head_size": null
    },
    "params": {
     "heads": "num_heads"
    }
   },
   "rope": {
    "field": "positions",
    "relation": "even",
    "left": "head_dim",
    "right": 0,
    "when": {
     "positions": "rope"
    },
    "params": {}
   },
   "context": {
    "field": "seq_len",
    "relation": "at_most",
    "left": "seq_len",
    "right": "context_length",
    "when": {
     "positions": "learned"
    },
    "params": {
     "ctx": "context_length"
    }
   },
   "hfu": {
    "field": "mfu",
    "relation": "at_most",
    "left": "hfu",
    "right": 1,
    "when": {},
    "params": {
     "hfu": "hfu"
    }
   }
  },
  "checks": [
   "vocab_size",
   "context_length",
   "num_layers",
   "d_model",
   "num_heads",
   "num_kv_heads",
   "d_ff",
   "seq_len",
   "micro_batch",
   "num_gpus",
   "grad_accum",
   "head_size",
   "gated_mlp",
   "tied_embeddings",
   "bias",
   "tf32",
   "nvls",
   "reduce_fp32",
   "flash_attention",
   "dropout",
   "kv",
   "heads",
   "norm",
   "positions",
   "rope",
   "context",
   "tokens",
   "gpu",
   "precision",
   "optimizer",
   "stage",
   "recompute",
   "mfu",
   "hfu"
  ],
  "architecture": [
   "vocab_size",
   "context_length",
   "num_layers",
   "d_model",
   "num_heads",
   "num_kv_heads",
   "d_ff",
   "gated_mlp",
   "tied_embeddings",
   "bias",
   "norm",
   "positions",
   "head_size",
   "dropout"
  ],
  "linked": [
   "vocab_size",
   "context_length",
   "num_layers",
   "d_model",
   "num_heads",
   "num_kv_heads",
   "d_ff",
   "gated_mlp",
   "tied_embeddings",
   "bias",
   "norm",
   "positions",
   "head_size",
   "dropout",
   "seq_len"
  ],
  "url": {
   "int": "[0-9]{1,15}",
   "tokens": "([0-9]{1,20})(?:\\.([0-9]{1,20}))?(?:[eE]([0-9]{1,2}))?",
   "real": "[0-9]{0,15}\\.?[0-9]{1,20}|[0-9]{1,15}\\.",
   "booleans": {
    "1": true,
    "true": true,
    "0": false,
    "false": false
   }
  }
 },
 "presets": {
  "gpt2-small": {
   "name": "GPT-2 small",
   "reported": "117M",
   "source": "Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', table 2 (layers, d_model, reported size); the released config.json of openai-community/gpt2(-medium, -large, -xl) (n_head, n_ctx 1024, vocabulary 50,257, d_ff = 4·d, tied embeddings, biases)",
   "vocab_size": 50257,
   "context_length": 1024,
   "num_layers": 12,
   "d_model": 768,
   "num_heads": 12,
   "num_kv_heads": 12,
   "d_ff": 3072,
   "gated_mlp": false,
   "tied_embeddings": true,
   "bias": true,
   "norm": "layernorm",
   "positions": "learned",
   "head_size": null,
   "dropout": true,
   "sets": {
    "seq_len": 1024
   }
  },
  "gpt2-medium": {
   "name": "GPT-2 medium",
   "reported": "345M",
   "source": "Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', table 2 (layers, d_model, reported size); the released config.json of openai-community/gpt2(-medium, -large, -xl) (n_head, n_ctx 1024, vocabulary 50,257, d_ff = 4·d, tied embeddings, biases)",
   "vocab_size": 50257,
   "context_length": 1024,
   "num_layers": 24,
   "d_model": 1024,
   "num_heads": 16,
   "num_kv_heads": 16,
   "d_ff": 4096,
   "gated_mlp": false,
   "tied_embeddings": true,
   "bias": true,
   "norm": "layernorm",
   "positions": "learned",
   "head_size": null,
   "dropout": true,
   "sets": {
    "seq_len": 1024
   }
  },
  "gpt2-large": {
   "name": "GPT-2 large",
   "reported": "762M",
   "source": "Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', table 2 (layers, d_model, reported size); the released config.json of openai-community/gpt2(-medium, -large, -xl) (n_head, n_ctx 1024, vocabulary 50,257, d_ff = 4·d, tied embeddings, biases)",
   "vocab_size": 50257,
   "context_length": 1024,
   "num_layers": 36,
   "d_model": 1280,
   "num_heads": 20,
   "num_kv_heads": 20,
   "d_ff": 5120,
   "gated_mlp": false,
   "tied_embeddings": true,
   "bias": true,
   "norm": "layernorm",
   "positions": "learned",
   "head_size": null,
   "dropout": true,
   "sets": {
    "seq_len": 1024
   }
  },
  "gpt2-xl": {
   "name": "GPT-2 XL",
   "reported": "1542M",
   "source": "Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', table 2 (layers, d_model, reported size); the released config.json of openai-community/gpt2(-medium, -large, -xl) (n_head, n_ctx 1024, vocabulary 50,257, d_ff = 4·d, tied embeddings, biases)",
   "vocab_size": 50257,
   "context_length": 1024,
   "num_layers": 48,
   "d_model": 1600,
   "num_heads": 25,
   "num_kv_heads": 25,
   "d_ff": 6400,
   "gated_mlp": false,
   "tied_embeddings": true,
   "bias": true,
   "norm": "layernorm",
   "positions": "learned",
   "head_size": null,
   "dropout": true,
   "sets": {
    "seq_len": 1024
   }
  },
  "llama2-7b": {
   "name": "Llama 2 7B",
   "reported": "7B",
   "source": "Touvron et al. 2023, 'Llama 2: Open Foundation and Fine-Tuned Chat Models', table 1 (context 4k, GQA for 70B) and section 2.2 (RMSNorm, SwiGLU, rotary embeddings); dim, layers, heads, KV heads, vocabulary 32,000 and the FFN rule (multiple_of, ffn_dim_multiplier) from the params.json released with the weights; untied, no biases",
   "vocab_size": 32000,
   "context_length": 4096,
   "num_layers": 32,
   "d_model": 4096,
   "num_heads": 32,
   "num_kv_heads": 32,
   "d_ff": 11008,
   "gated_mlp": true,
   "tied_embeddings": false,
   "bias": false,
   "norm": "rmsnorm",
   "positions": "rope",
   "head_size": null,
   "dropout": false,
   "sets": {
    "seq_len": 4096,
    "tokens": 2000000000000
   }
  },
  "llama2-13b": {
   "name": "Llama 2 13B",
   "reported": "13B",
   "source": "Touvron et al. 2023, 'Llama 2: Open Foundation and Fine-Tuned Chat Models', table 1 (context 4k, GQA for 70B) and section 2.2 (RMSNorm, SwiGLU, rotary embeddings); dim, layers, heads, KV heads, vocabulary 32,000 and the FFN rule (multiple_of, ffn_dim_multiplier) from the params.json released with the weights; untied, no biases",
   "vocab_size": 32000,
   "context_length": 4096,
   "num_layers": 40,
   "d_model": 5120,
   "num_heads": 40,
   "num_kv_heads": 40,
   "d_ff": 13824,
   "gated_mlp": true,
   "tied_embeddings": false,
   "bias": false,
   "norm": "rmsnorm",
   "positions": "rope",
   "head_size": null,
   "dropout": false,
   "sets": {
    "seq_len": 4096,
    "tokens": 2000000000000
   }
  },
  "llama2-70b": {
   "name": "Llama 2 70B",
   "reported": "70B",
   "source": "Touvron et al. 2023, 'Llama 2: Open Foundation and Fine-Tuned Chat Models', table 1 (context 4k, GQA for 70B) and section 2.2 (RMSNorm, SwiGLU, rotary embeddings); dim, layers, heads, KV heads, vocabulary 32,000 and the FFN rule (multiple_of, ffn_dim_multiplier) from the params.json released with the weights; untied, no biases",
   "vocab_size": 32000,
   "context_length": 4096,
   "num_layers": 80,
   "d_model": 8192,
   "num_heads": 64,
   "num_kv_heads": 8,
   "d_ff": 28672,
   "gated_mlp": true,
   "tied_embeddings": false,
   "bias": false,
   "norm": "rmsnorm",
   "positions": "rope",
   "head_size": null,
   "dropout": false,
   "sets": {
    "seq_len": 4096,
    "tokens": 2000000000000
   }
  },
  "llama3-8b": {
   "name": "Llama 3 8B",
   "reported": "8B",
   "source": "Meta Llama 3 model card and the released config.json of meta-llama/Meta-Llama-3-8B (vocab_size 128256, hidden_size 4096, intermediate_size 14336, 32 layers, 32 heads, 8 KV heads, max_position_embeddings 8192, tie_word_embeddings false, RMSNorm, RoPE; no biases)",
   "vocab_size": 128256,
   "context_length": 8192,
   "num_layers": 32,
   "d_model": 4096,
   "num_heads": 32,
   "num_kv_heads": 8,
   "d_ff": 14336,
   "gated_mlp": true,
   "tied_embeddings": false,
   "bias": false,
   "norm": "rmsnorm",
   "positions": "rope",
   "head_size": null,
   "dropout": false,
   "sets": {
    "seq_len": 8192,
    "tokens": 15000000000000
   }
  },
  "gemma7b": {
   "name": "Gemma 7B",
   "reported": "7B",
   "source": "Gemma Team 2024, 'Gemma: Open Models Based on Gemini Research and Technology', table 1 (d_model 3072, 28 layers, 16 heads of size 256, 16 KV heads, context 8192) and table 2 (7,751,248,896 non-embedding parameters); transformers' GemmaConfig defaults (google/gemma-7b: vocab_size 256000, intermediate_size 24576, head_dim 256, tie_word_embeddings true, RMSNorm, RoPE, GeGLU: a gated MLP of three matrices, counted as SwiGLU's; no biases); released size 8,537,680,896 (keras-hub's gemma_7b_en preset)",
   "vocab_size": 256000,
   "context_length": 8192,
   "num_layers": 28,
   "d_model": 3072,
   "num_heads": 16,
   "num_kv_heads": 16,
   "d_ff": 24576,
   "gated_mlp": true,
   "tied_embeddings": true,
   "bias": false,
   "norm": "rmsnorm",
   "positions": "rope",
   "head_size": 256,
   "dropout": false,
   "sets": {
    "seq_len": 8192,
    "tokens": 6000000000000
   }
  }
 },
 "accelerators": {
  "t4": {
   "name": "NVIDIA T4",
   "memory_bytes": 16000000000,
   "peak_flops": {
    "fp32": 8100000000000.0,
    "fp16": 65000000000000.0,
    "int8": 130000000000000.0
   },
   "source": "NVIDIA T4 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/tesla-t4/"
  },
  "v100-sxm2-16gb": {
   "name": "NVIDIA V100 SXM2 16GB",
   "memory_bytes": 16000000000,
   "peak_flops": {
    "fp64": 7800000000000.0,
    "fp32": 15700000000000.0,
    "fp16": 125000000000000.0
   },
   "source": "NVIDIA Tesla V100 GPU datasheet, https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"
  },
  "v100-sxm2-32gb": {
   "name": "NVIDIA V100 SXM2 32GB",
   "memory_bytes": 32000000000,
   "peak_flops": {
    "fp64": 7800000000000.0,
    "fp32": 15700000000000.0,
    "fp16": 125000000000000.0
   },
   "source": "NVIDIA Tesla V100 GPU datasheet, https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"
  },
  "v100-pcie-16gb": {
   "name": "NVIDIA V100 PCIe 16GB",
   "memory_bytes": 16000000000,
   "peak_flops": {
    "fp64": 7000000000000.0,
    "fp32": 14000000000000.0,
    "fp16": 112000000000000.0
   },
   "source": "NVIDIA Tesla V100 GPU datasheet, https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"
  },
  "a10": {
   "name": "NVIDIA A10",
   "memory_bytes": 24000000000,
   "peak_flops": {
    "fp32": 31200000000000.0,
    "tf32": 62500000000000.0,
    "bf16": 125000000000000.0,
    "fp16": 125000000000000.0,
    "int8": 250000000000000.0
   },
   "source": "NVIDIA A10 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/products/a10-gpu/"
  },
  "a10g": {
   "name": "NVIDIA A10G",
   "memory_bytes": 24000000000,
   "peak_flops": {
    "fp32": 35000000000000.0,
    "tf32": 35000000000000.0,
    "bf16": 70000000000000.0,
    "fp16": 70000000000000.0,
    "int8": 140000000000000.0
   },
   "source": "AWS EC2 G5 (A10G) specifications as compared in 'NVIDIA A10 vs A10G for ML model inference', https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/"
  },
  "l4": {
   "name": "NVIDIA L4",
   "memory_bytes": 24000000000,
   "peak_flops": {
    "fp32": 30300000000000.0,
    "tf32": 60000000000000.0,
    "bf16": 121000000000000.0,
    "fp16": 121000000000000.0,
    "fp8": 242500000000000.0,
    "int8": 242500000000000.0
   },
   "source": "NVIDIA L4 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/l4/"
  },
  "l40s": {
   "name": "NVIDIA L40S",
   "memory_bytes": 48000000000,
   "peak_flops": {
    "fp32": 91600000000000.0,
    "tf32": 183000000000000.0,
    "bf16": 362050000000000.0,
    "fp16": 362050000000000.0,
    "fp8": 733000000000000.0,
    "int8": 733000000000000.0
   },
   "source": "NVIDIA L40S GPU datasheet, https://www.nvidia.com/en-us/data-center/l40s/"
  },
  "a100-sxm-40gb": {
   "name": "NVIDIA A100 SXM4 40GB",
   "memory_bytes": 40000000000,
   "peak_flops": {
    "fp64": 9700000000000.0,
    "fp32": 19500000000000.0,
    "tf32": 156000000000000.0,
    "bf16": 312000000000000.0,
    "fp16": 312000000000000.0,
    "int8": 624000000000000.0
   },
   "source": "NVIDIA A100 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
  },
  "a100-sxm-80gb": {
   "name": "NVIDIA A100 SXM4 80GB",
   "memory_bytes": 80000000000,
   "peak_flops": {
    "fp64": 9700000000000.0,
    "fp32": 19500000000000.0,
    "tf32": 156000000000000.0,
    "bf16": 312000000000000.0,
    "fp16": 312000000000000.0,
    "int8": 624000000000000.0
   },
   "source": "NVIDIA A100 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
  },
  "a100-pcie-40gb": {
   "name": "NVIDIA A100 PCIe 40GB",
   "memory_bytes": 40000000000,
   "peak_flops": {
    "fp64": 9700000000000.0,
    "fp32": 19500000000000.0,
    "tf32": 156000000000000.0,
    "bf16": 312000000000000.0,
    "fp16": 312000000000000.0,
    "int8": 624000000000000.0
   },
   "source": "NVIDIA A100 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
  },
  "a100-pcie-80gb": {
   "name": "NVIDIA A100 PCIe 80GB",
   "memory_bytes": 80000000000,
   "peak_flops": {
    "fp64": 9700000000000.0,
    "fp32": 19500000000000.0,
    "tf32": 156000000000000.0,
    "bf16": 312000000000000.0,
    "fp16": 312000000000000.0,
    "int8": 624000000000000.0
   },
   "source": "NVIDIA A100 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
  },
  "h100-sxm": {
   "name": "NVIDIA H100 SXM",
   "memory_bytes": 80000000000,
   "peak_flops": {
    "fp64": 34000000000000.0,
    "fp32": 67000000000000.0,
    "tf32": 494700000000000.0,
    "bf16": 989400000000000.0,
    "fp16": 989400000000000.0,
    "fp8": 1978900000000000.0,
    "int8": 1978900000000000.0
   },
   "source": "NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/; dense tensor rates from table 3 of the NVIDIA H100 Tensor Core GPU Architecture whitepaper (editions after the first GTC22 one, whose figures were preliminary), https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper"
  },
  "h100-pcie": {
   "name": "NVIDIA H100 PCIe",
   "memory_bytes": 80000000000,
   "peak_flops": {
    "fp64": 26000000000000.0,
    "fp32": 51000000000000.0,
    "tf32": 378000000000000.0,
    "bf16": 756000000000000.0,
    "fp16": 756000000000000.0,
    "fp8": 1513000000000000.0,
    "int8": 1513000000000000.0
   },
   "source": "NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/; dense tensor rates from table 3 of the NVIDIA H100 Tensor Core GPU Architecture whitepaper (editions after the first GTC22 one, whose figures were preliminary), https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper"
  },
  "h100-nvl": {
   "name": "NVIDIA H100 NVL",
   "memory_bytes": 94000000000,
   "peak_flops": {
    "fp64": 30000000000000.0,
    "fp32": 60000000000000.0,
    "tf32": 417500000000000.0,
    "bf16": 835500000000000.0,
    "fp16": 835500000000000.0,
    "fp8": 1670500000000000.0,
    "int8": 1670500000000000.0
   },
   "source": "NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/; dense tensor rates from table 3 of the NVIDIA H100 Tensor Core GPU Architecture whitepaper (editions after the first GTC22 one, whose figures were preliminary), https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper"
  },
  "h200": {
   "name": "NVIDIA H200 SXM",
   "memory_bytes": 141000000000,
   "peak_flops": {
    "fp64": 34000000000000.0,
    "fp32": 67000000000000.0,
    "tf32": 494700000000000.0,
    "bf16": 989400000000000.0,
    "fp16": 989400000000000.0,
    "fp8": 1978900000000000.0,
    "int8": 1978900000000000.0
   },
   "source": "NVIDIA H200 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h200/"
  },
  "h200-nvl": {
   "name": "NVIDIA H200 NVL",
   "memory_bytes": 141000000000,
   "peak_flops": {
    "fp64": 30000000000000.0,
    "fp32": 60000000000000.0,
    "tf32": 417500000000000.0,
    "bf16": 835500000000000.0,
    "fp16": 835500000000000.0,
    "fp8": 1670500000000000.0,
    "int8": 1670500000000000.0
   },
   "source": "NVIDIA H200 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h200/"
  },
  "b200": {
   "name": "NVIDIA B200",
   "memory_bytes": 180000000000,
   "peak_flops": {
    "fp64": 37000000000000.0,
    "fp32": 75000000000000.0,
    "tf32": 1125000000000000.0,
    "bf16": 2250000000000000.0,
    "fp16": 2250000000000000.0,
    "fp8": 4500000000000000.0,
    "int8": 4500000000000000.0
   },
   "source": "NVIDIA HGX B200 specifications (8-GPU figures / 8), https://www.nvidia.com/en-us/data-center/hgx/"
  },
  "rtx-3090": {
   "name": "NVIDIA GeForce RTX 3090",
   "memory_bytes": 24000000000,
   "peak_flops": {
    "fp32": 35600000000000.0,
    "tf32": 35600000000000.0,
    "bf16": 71000000000000.0,
    "fp16": 71000000000000.0,
    "int8": 284000000000000.0
   },
   "source": "NVIDIA Ampere GA102 GPU Architecture whitepaper (RTX 3090 column), https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf"
  },
  "rtx-4090": {
   "name": "NVIDIA GeForce RTX 4090",
   "memory_bytes": 24000000000,
   "peak_flops": {
    "fp32": 82600000000000.0,
    "tf32": 82600000000000.0,
    "bf16": 165200000000000.0,
    "fp16": 165200000000000.0,
    "fp8": 330300000000000.0,
    "int8": 660600000000000.0
   },
   "source": "NVIDIA Ada GPU Architecture whitepaper (RTX 4090 column), https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf"
  }
 },
 "precisions": {
  "fp32": {
   "param": 4,
   "grad": 4,
   "master": 0,
   "state": 4,
   "activation": 4
  },
  "mixed_bf16": {
   "param": 2,
   "grad": 2,
   "master": 4,
   "state": 4,
   "activation": 2
  },
  "mixed_bf16_fp32_grads": {
   "param": 2,
   "grad": 4,
   "master": 4,
   "state": 4,
   "activation": 2
  }
 },
 "optimizer_states": {
  "sgd": 0,
  "sgd_momentum": 1,
  "adagrad": 1,
  "adam": 2,
  "adamw": 2
 },
 "stages": [
  "dp",
  "zero1",
  "zero2",
  "zero3"
 ],
 "recompute": [
  "none",
  "selective",
  "full"
 ],
 "norms": [
  "layernorm",
  "rmsnorm"
 ],
 "positions": [
  "learned",
  "rope"
 ],
 "matmul_dtype": {
  "fp32": "fp32",
  "mixed_bf16": "bf16",
  "mixed_bf16_fp32_grads": "bf16"
 },
 "seconds_per_day": 86400,
 "defaults": {
  "model": "gpt2-small",
  "vocab_size": 50257,
  "context_length": 1024,
  "num_layers": 12,
  "d_model": 768,
  "num_heads": 12,
  "num_kv_heads": 12,
  "d_ff": 3072,
  "gated_mlp": false,
  "tied_embeddings": true,
  "bias": true,
  "norm": "layernorm",
  "positions": "learned",
  "head_size": null,
  "dropout": true,
  "seq_len": 1024,
  "micro_batch": 8,
  "grad_accum": 1,
  "tokens": 10000000000,
  "gpu": "h100-sxm",
  "num_gpus": 8,
  "mfu": 0.4,
  "tf32": false,
  "precision": "mixed_bf16",
  "optimizer": "adamw",
  "stage": "dp",
  "recompute": "none",
  "flash_attention": true,
  "nvls": true,
  "reduce_fp32": true
 },
 "clusters": {
  "a100-sxm-40gb": {
   "name": "DGX A100",
   "gpus_per_node": 8,
   "nvlink": 240000000000.0,
   "nics_per_node": 8,
   "nic": 23500000000.0,
   "nvls": 0.0,
   "latency": 1.0
  },
  "a100-sxm-80gb": {
   "name": "DGX A100",
   "gpus_per_node": 8,
   "nvlink": 240000000000.0,
   "nics_per_node": 8,
   "nic": 23500000000.0,
   "nvls": 0.0,
   "latency": 1.0
  },
  "h100-sxm": {
   "name": "DGX H100",
   "gpus_per_node": 8,
   "nvlink": 370800000000.0,
   "nics_per_node": 8,
   "nic": 47000000000.0,
   "nvls": 274285714285.7143,
   "latency": 1.0
  },
  "h200": {
   "name": "DGX H200",
   "gpus_per_node": 8,
   "nvlink": 370800000000.0,
   "nics_per_node": 8,
   "nic": 47000000000.0,
   "nvls": 274285714285.7143,
   "latency": 1.0
  },
  "b200": {
   "name": "DGX B200",
   "gpus_per_node": 8,
   "nvlink": 721800000000.0,
   "nics_per_node": 8,
   "nic": 47000000000.0,
   "nvls": 483240000000.0,
   "latency": 1.0
  }
 },
 "ddp_bucket_bytes": 26214400,
 "ddp_first_bucket_bytes": 1048576,
 "nccl_algorithms": [
  {
   "name": "ring/LL",
   "kind": "ring",
   "base": 6.5999999999999995e-06,
   "nvlink_hop": 6e-07,
   "net_hop": 2.7e-06,
   "share": 0.25,
   "share_across": 0.25,
   "ll_cap": true
  },
  {
   "name": "ring/LL128",
   "kind": "ring",
   "base": 1.4e-05,
   "nvlink_hop": 1.8999999999999998e-06,
   "net_hop": 4e-06,
   "share": 0.92,
   "share_across": 0.92,
   "ll_cap": false
  },
  {
   "name": "ring/Simple",
   "kind": "ring",
   "base": 8.4e-06,
   "nvlink_hop": 3.3999999999999996e-06,
   "net_hop": 1.4e-05,
   "share": 1.0,
   "share_across": 1.0,
   "ll_cap": false
  },
  {
   "name": "tree/LL",
   "kind": "tree",
   "base": 6.799999999999999e-06,
   "nvlink_hop": 6e-07,
   "net_hop": 4.9999999999999996e-06,
   "share": 0.24210526315789477,
   "share_across": 0.24210526315789477,
   "ll_cap": true
  },
  {
   "name": "tree/LL128",
   "kind": "tree",
   "base": 1.4e-05,
   "nvlink_hop": 1.2499999999999999e-06,
   "net_hop": 8.5e-06,
   "share": 0.7155555555555556,
   "share_across": 0.8625,
   "ll_cap": false
  },
  {
   "name": "tree/Simple",
   "kind": "tree",
   "base": 0.0,
   "nvlink_hop": 2.8e-05,
   "net_hop": 2.8e-05,
   "share": 0.92,
   "share_across": 0.92,
   "ll_cap": false
  },
  {
   "name": "nvls/Simple",
   "kind": "nvls",
   "base": 0.0,
   "nvlink_hop": 2.3e-05,
   "net_hop": 1.8e-05,
   "share": 1.0,
   "share_across": 1.0,
   "ll_cap": false
  }
 ],
 "nccl_ll_max_bus": [
  87700000000.0,
  39000000000.0,
  20400000000.0
 ],
 "nccl_ring_plateau": 1.4,
 "nccl_ramp_bytes": {
  "nvls": 1048576,
  "ring": 50331648,
  "tree": 50331648
 },
 "token_budgets": {
  "llama2-7b": 2000000000000,
  "llama2-13b": 2000000000000,
  "llama2-70b": 2000000000000,
  "llama3-8b": 15000000000000,
  "gemma7b": 6000000000000
 },
 "cuda_context_bytes": 1408237568,
 "validation": [
  {
   "kind": "mfu",
   "config": {
    "gpu": "a100-sxm-80gb",
    "num_gpus": 64,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "model": "llama3-8b",
    "seq_len": 8192,
    "micro_batch": 1,
    "recompute": "none"
   },
   "tokens_per_gpu_s": 2904,
   "mfu": 0.568,
   "label_en": "Llama 3 8B, 64 × A100, b = 1, T = 8192, selective (layer) AC",
   "label_zh": "Llama 3 8B，64 × A100，b = 1，T = 8192，选择性重计算（按层）",
   "source": "github.com/pytorch/torchtitan, docs/performance.md at commit 0413364 (64 A100 80GB, FSDP2; tables 'Llama 3 performance numbers' and 'Llama 2 performance numbers')",
   "source_short": "pytorch/torchtitan docs/performance.md @0413364",
   "card": "NVIDIA A100 SXM4 80GB",
   "calc": {
    "per_token": 57912852480,
    "peak_flops": 312000000000000.0,
    "mfu": 0.5390350115446154,
    "mfu_embedding_counted": 0.5683730387889231,
    "ratio": 0.9490053020151681
   }
  },
  {
   "kind": "mfu",
   "config": {
    "gpu": "a100-sxm-80gb",
    "num_gpus": 64,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "model": "llama3-8b",
    "seq_len": 8192,
    "micro_batch": 1,
    "recompute": "none"
   },
   "tokens_per_gpu_s": 2973,
   "mfu": 0.582,
   "label_en": "Llama 3 8B, 64 × A100, b = 1, T = 8192, selective (op) AC",
   "label_zh": "Llama 3 8B，64 × A100，b = 1，T = 8192，选择性重计算（按算子）",
   "source": "github.com/pytorch/torchtitan, docs/performance.md at commit 0413364 (64 A100 80GB, FSDP2; tables 'Llama 3 performance numbers' and 'Llama 2 performance numbers')",
   "source_short": "pytorch/torchtitan docs/performance.md @0413364",
   "card": "NVIDIA A100 SXM4 80GB",
   "calc": {
    "per_token": 57912852480,
    "peak_flops": 312000000000000.0,
    "mfu": 0.5518426616123077,
    "mfu_embedding_counted": 0.5818777700824616,
    "ratio": 0.9481832673750992
   }
  },
  {
   "kind": "mfu",
   "config": {
    "gpu": "a100-sxm-80gb",
    "num_gpus": 64,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "model": "llama2-13b",
    "seq_len": 4096,
    "micro_batch": 2,
    "recompute": "none"
   },
   "tokens_per_gpu_s": 2162,
   "mfu": 0.611,
   "label_en": "Llama 2 13B, 64 × A100, b = 2, T = 4096, no activation checkpointing",
   "label_zh": "Llama 2 13B，64 × A100，b = 2，T = 4096，不重计算",
   "source": "github.com/pytorch/torchtitan, docs/performance.md at commit 0413364 (64 A100 80GB, FSDP2; tables 'Llama 3 performance numbers' and 'Llama 2 performance numbers')",
   "source_short": "pytorch/torchtitan docs/performance.md @0413364",
   "card": "NVIDIA A100 SXM4 80GB",
   "calc": {
    "per_token": 87175987200,
    "peak_flops": 312000000000000.0,
    "mfu": 0.6040848856615385,
    "mfu_embedding_counted": 0.6108968487384615,
    "ratio": 0.988682300591716
   }
  },
  {
   "kind": "mfu",
   "config": {
    "gpu": "a100-sxm-80gb",
    "num_gpus": 64,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "model": "llama2-13b",
    "seq_len": 4096,
    "micro_batch": 2,
    "recompute": "none"
   },
   "tokens_per_gpu_s": 1914,
   "mfu": 0.541,
   "label_en": "Llama 2 13B, 64 × A100, b = 2, T = 4096, selective (layer) AC",
   "label_zh": "Llama 2 13B，64 × A100，b = 2，T = 4096，选择性重计算（按层）",
   "source": "github.com/pytorch/torchtitan, docs/performance.md at commit 0413364 (64 A100 80GB, FSDP2; tables 'Llama 3 performance numbers' and 'Llama 2 performance numbers')",
   "source_short": "pytorch/torchtitan docs/performance.md @0413364",
   "card": "NVIDIA A100 SXM4 80GB",
   "calc": {
    "per_token": 87175987200,
    "peak_flops": 312000000000000.0,
    "mfu": 0.5347911522461538,
    "mfu_embedding_counted": 0.5408217245538461,
    "ratio": 0.9885233867766243
   }
  },
  {
   "kind": "mfu",
   "config": {
    "gpu": "a100-sxm-80gb",
    "num_gpus": 64,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "model": "llama2-13b",
    "seq_len": 4096,
    "micro_batch": 2,
    "recompute": "none"
   },
   "tokens_per_gpu_s": 1904,
   "mfu": 0.538,
   "label_en": "Llama 2 13B, 64 × A100, b = 2, T = 4096, selective (op) AC",
   "label_zh": "Llama 2 13B，64 × A100，b = 2，T = 4096，选择性重计算（按算子）",
   "source": "github.com/pytorch/torchtitan, docs/performance.md at commit 0413364 (64 A100 80GB, FSDP2; tables 'Llama 3 performance numbers' and 'Llama 2 performance numbers')",
   "source_short": "pytorch/torchtitan docs/performance.md @0413364",
   "card": "NVIDIA A100 SXM4 80GB",
   "calc": {
    "per_token": 87175987200,
    "peak_flops": 312000000000000.0,
    "mfu": 0.5319970500923077,
    "mfu_embedding_counted": 0.5379961147076923,
    "ratio": 0.9888421005433228
   }
  },
  {
   "kind": "mfu",
   "config": {
    "gpu": "a100-sxm-80gb",
    "num_gpus": 64,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "model": "llama2-70b",
    "seq_len": 4096,
    "micro_batch": 1,
    "recompute": "none"
   },
   "tokens_per_gpu_s": 355,
   "mfu": 0.508,
   "label_en": "Llama 2 70B, 64 × A100, b = 1, T = 4096, selective (op) AC",
   "label_zh": "Llama 2 70B，64 × A100，b = 1，T = 4096，选择性重计算（按算子）",
   "source": "github.com/pytorch/torchtitan, docs/performance.md at commit 0413364 (64 A100 80GB, FSDP2; tables 'Llama 3 performance numbers' and 'Llama 2 performance numbers')",
   "source_short": "pytorch/torchtitan docs/performance.md @0413364",
   "card": "NVIDIA A100 SXM4 80GB",
   "calc": {
    "per_token": 444491366400,
    "peak_flops": 312000000000000.0,
    "mfu": 0.5057513944615385,
    "mfu_embedding_counted": 0.5075410313846154,
    "ratio": 0.9955736111447608
   }
  },
  {
   "kind": "mfu",
   "config": {
    "gpu": "a100-sxm-80gb",
    "num_gpus": 64,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "model": "llama2-70b",
    "seq_len": 4096,
    "micro_batch": 2,
    "recompute": "full"
   },
   "tokens_per_gpu_s": 353,
   "mfu": 0.505,
   "label_en": "Llama 2 70B, 64 × A100, b = 2, T = 4096, full AC",
   "label_zh": "Llama 2 70B，64 × A100，b = 2，T = 4096，完全重计算",
   "source": "github.com/pytorch/torchtitan, docs/performance.md at commit 0413364 (64 A100 80GB, FSDP2; tables 'Llama 3 performance numbers' and 'Llama 2 performance numbers')",
   "source_short": "pytorch/torchtitan docs/performance.md @0413364",
   "card": "NVIDIA A100 SXM4 80GB",
   "calc": {
    "per_token": 444491366400,
    "peak_flops": 312000000000000.0,
    "mfu": 0.5029020908307692,
    "mfu_embedding_counted": 0.5046816452923077,
    "ratio": 0.9958457244173647
   }
  },
  {
   "kind": "throughput",
   "config": {
    "model": "llama3-8b",
    "gpu": "h100-sxm",
    "seq_len": 8192,
    "micro_batch": 2,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "recompute": "selective",
    "num_gpus": 8
   },
   "tokens_per_gpu_s": 5762,
   "mfu_range": [
    0.33,
    0.39
   ],
   "memory_gib": 82.4,
   "compiled": false,
   "label_en": "Llama 3.1 8B, 8 × H100, FSDP, b = 2, T = 8192",
   "label_zh": "Llama 3.1 8B，8 × H100，FSDP，b = 2，T = 8192",
   "source": "github.com/pytorch/torchtitan, benchmarks/llama3_h100_202412_torchtitan.md at commit 31a17bf (Llama 3.1 8B, FSDP, local batch 2, selective activation checkpointing; tables 1 and 3; H100s with 96GB HBM2e at 500 W)",
   "source_short": "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @31a17bf",
   "card": "NVIDIA H100 SXM",
   "calc": {
    "per_token": 57912852480,
    "peak_flops": 989400000000000.0,
    "mfu": 0.3372689063975743,
    "memory_full": 44465087488.0,
    "memory_none": 139056997376.0,
    "memory_drop_published": 16535624089.600006,
    "memory_drop": 16938832320.0,
    "ratio": 1.024384216054693
   }
  },
  {
   "kind": "throughput",
   "config": {
    "model": "llama3-8b",
    "gpu": "h100-sxm",
    "seq_len": 8192,
    "micro_batch": 2,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "recompute": "selective",
    "num_gpus": 8
   },
   "tokens_per_gpu_s": 6667,
   "mfu_range": [
    0.33,
    0.39
   ],
   "memory_gib": 77.0,
   "compiled": true,
   "label_en": "Llama 3.1 8B, 8 × H100, FSDP + torch.compile, b = 2, T = 8192",
   "label_zh": "Llama 3.1 8B，8 × H100，FSDP + torch.compile，b = 2，T = 8192",
   "source": "github.com/pytorch/torchtitan, benchmarks/llama3_h100_202412_torchtitan.md at commit 31a17bf (Llama 3.1 8B, FSDP, local batch 2, selective activation checkpointing; tables 1 and 3; H100s with 96GB HBM2e at 500 W)",
   "source_short": "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @31a17bf",
   "card": "NVIDIA H100 SXM",
   "calc": {
    "per_token": 57912852480,
    "peak_flops": 989400000000000.0,
    "mfu": 0.3902415478918132,
    "memory_full": 44465087488.0,
    "memory_none": 139056997376.0,
    "memory_drop_published": 16106127360.0,
    "memory_drop": 16938832320.0,
    "ratio": 1.0517011284828186
   }
  },
  {
   "kind": "throughput",
   "config": {
    "model": "llama3-8b",
    "gpu": "h100-sxm",
    "seq_len": 8192,
    "micro_batch": 2,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "recompute": "selective",
    "num_gpus": 128
   },
   "tokens_per_gpu_s": 5605,
   "mfu_range": [
    0.33,
    0.39
   ],
   "memory_gib": 67.0,
   "compiled": false,
   "label_en": "Llama 3.1 8B, 128 × H100, FSDP, b = 2, T = 8192",
   "label_zh": "Llama 3.1 8B，128 × H100，FSDP，b = 2，T = 8192",
   "source": "github.com/pytorch/torchtitan, benchmarks/llama3_h100_202412_torchtitan.md at commit 31a17bf (Llama 3.1 8B, FSDP, local batch 2, selective activation checkpointing; tables 1 and 3; H100s with 96GB HBM2e at 500 W)",
   "source_short": "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @31a17bf",
   "card": "NVIDIA H100 SXM",
   "calc": {
    "per_token": 57912852480,
    "peak_flops": 989400000000000.0,
    "mfu": 0.32807917743117043,
    "memory_full": 27526255168.0,
    "memory_none": 122118165056.0,
    "memory_drop_published": 16535624089.600006,
    "memory_drop": 16938832320.0,
    "ratio": 1.024384216054693
   }
  },
  {
   "kind": "throughput",
   "config": {
    "model": "llama3-8b",
    "gpu": "h100-sxm",
    "seq_len": 8192,
    "micro_batch": 2,
    "stage": "zero3",
    "precision": "mixed_bf16_fp32_grads",
    "recompute": "selective",
    "num_gpus": 128
   },
   "tokens_per_gpu_s": 6514,
   "mfu_range": [
    0.33,
    0.39
   ],
   "memory_gib": 62.0,
   "compiled": true,
   "label_en": "Llama 3.1 8B, 128 × H100, FSDP + torch.compile, b = 2, T = 8192",
   "label_zh": "Llama 3.1 8B，128 × H100，FSDP + torch.compile，b = 2，T = 8192",
   "source": "github.com/pytorch/torchtitan, benchmarks/llama3_h100_202412_torchtitan.md at commit 31a17bf (Llama 3.1 8B, FSDP, local batch 2, selective activation checkpointing; tables 1 and 3; H100s with 96GB HBM2e at 500 W)",
   "source_short": "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @31a17bf",
   "card": "NVIDIA H100 SXM",
   "calc": {
    "per_token": 57912852480,
    "peak_flops": 989400000000000.0,
    "mfu": 0.38128595214748334,
    "memory_full": 27526255168.0,
    "memory_none": 122118165056.0,
    "memory_drop_published": 16106127360.0,
    "memory_drop": 16938832320.0,
    "ratio": 1.0517011284828186
   }
  },
  {
   "kind": "gpu_hours",
   "gpu_hours": 184320,
   "label_en": "Llama 2 7B, 2T tokens",
   "label_zh": "Llama 2 7B，2 万亿（2T）个词元",
   "config": {
    "model": "llama2-7b",
    "gpu": "a100-sxm-80gb",
    "tokens": 2000000000000,
    "mfu": 0.505
   },
   "source": "github.com/meta-llama/llama, MODEL_CARD.md at commit 0e3444b (Touvron et al. 2023, table 2): GPU-hours on A100-80GB; 2.0T tokens, context 4k",
   "source_short": "meta-llama/llama MODEL_CARD.md @0e3444b",
   "card": "NVIDIA A100 SXM4 80GB",
   "calc": {
    "per_token": 46084915200,
    "peak_flops": 312000000000000.0,
    "gpu_hours": 162495.1172040281,
    "mfu": 0.4452041785375119,
    "ratio": 0.8815924327475483
   }
  },
  {
   "kind": "gpu_hours",
   "gpu_hours": 368640,
   "label_en": "Llama 2 13B, 2T tokens",
   "label_zh": "Llama 2 13B，2 万亿（2T）个词元",
   "config": {
    "model": "llama2-13b",
    "gpu": "a100-sxm-80gb",
    "tokens": 2000000000000,
    "mfu": 0.505
   },
   "source": "github.com/meta-llama/llama, MODEL_CARD.md at commit 0e3444b (Touvron et al. 2023, table 2): GPU-hours on A100-80GB; 2.0T tokens, context 4k",
   "source_short": "meta-llama/llama MODEL_CARD.md @0e3444b",
   "card": "NVIDIA A100 SXM4 80GB",
   "calc": {
    "per_token": 87175987200,
    "peak_flops": 312000000000000.0,
    "gpu_hours": 307381.975120589,
    "mfu": 0.42108262108262107,
    "ratio": 0.8338269724408339
   }
  },
  {
   "kind": "gpu_hours",
   "gpu_hours": 1720320,
   "label_en": "Llama 2 70B, 2T tokens",
   "label_zh": "Llama 2 70B，2 万亿（2T）个词元",
   "config": {
    "model": "llama2-70b",
    "gpu": "a100-sxm-80gb",
    "tokens": 2000000000000,
    "mfu": 0.505
   },
   "source": "github.com/meta-llama/llama, MODEL_CARD.md at commit 0e3444b (Touvron et al. 2023, table 2): GPU-hours on A100-80GB; 2.0T tokens, context 4k",
   "source_short": "meta-llama/llama MODEL_CARD.md @0e3444b",
   "card": "NVIDIA A100 SXM4 80GB",
   "calc": {
    "per_token": 444491366400,
    "peak_flops": 312000000000000.0,
    "gpu_hours": 1567273.7242955065,
    "mfu": 0.46007326007326005,
    "ratio": 0.911036158560911
   }
  }
 ]
};

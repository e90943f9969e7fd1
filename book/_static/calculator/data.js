// Written by `python -m cs336_lec2.calculator` from the package's tables; do not edit by hand
// (tests/test_calculator.py fails when this file and the package differ).
(window.CS336_CALC = window.CS336_CALC || {}).DATA = {
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
   "positions": "learned"
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
   "positions": "learned"
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
   "positions": "learned"
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
   "positions": "learned"
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
   "positions": "rope"
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
   "positions": "rope"
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
   "positions": "rope"
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
   "positions": "rope"
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
  "flash_attention": true
 },
 "clusters": {
  "a100-sxm-40gb": {
   "name": "DGX A100",
   "gpus_per_node": 8,
   "nvlink": 300000000000.0,
   "nics_per_node": 8,
   "nic": 25000000000.0,
   "base_latency": 8.4e-06,
   "nvlink_step": 3.4e-06,
   "net_step": 1.4e-05
  },
  "a100-sxm-80gb": {
   "name": "DGX A100",
   "gpus_per_node": 8,
   "nvlink": 300000000000.0,
   "nics_per_node": 8,
   "nic": 25000000000.0,
   "base_latency": 8.4e-06,
   "nvlink_step": 3.4e-06,
   "net_step": 1.4e-05
  },
  "h100-sxm": {
   "name": "DGX H100",
   "gpus_per_node": 8,
   "nvlink": 450000000000.0,
   "nics_per_node": 8,
   "nic": 50000000000.0,
   "base_latency": 8.4e-06,
   "nvlink_step": 3.4e-06,
   "net_step": 1.4e-05
  },
  "h200": {
   "name": "DGX H200",
   "gpus_per_node": 8,
   "nvlink": 450000000000.0,
   "nics_per_node": 8,
   "nic": 50000000000.0,
   "base_latency": 8.4e-06,
   "nvlink_step": 3.4e-06,
   "net_step": 1.4e-05
  },
  "b200": {
   "name": "DGX B200",
   "gpus_per_node": 8,
   "nvlink": 900000000000.0,
   "nics_per_node": 8,
   "nic": 50000000000.0,
   "base_latency": 8.4e-06,
   "nvlink_step": 3.4e-06,
   "net_step": 1.4e-05
  }
 },
 "ddp_bucket_bytes": 26214400,
 "url_keys": {
  "model": "model",
  "vocab_size": "vocab",
  "context_length": "ctx",
  "num_layers": "layers",
  "d_model": "d",
  "num_heads": "heads",
  "num_kv_heads": "kv",
  "d_ff": "dff",
  "gated_mlp": "gated",
  "tied_embeddings": "tied",
  "bias": "bias",
  "norm": "norm",
  "positions": "pos",
  "seq_len": "seq",
  "micro_batch": "batch",
  "grad_accum": "accum",
  "tokens": "tokens",
  "gpu": "gpu",
  "num_gpus": "gpus",
  "mfu": "mfu",
  "tf32": "tf32",
  "precision": "prec",
  "optimizer": "opt",
  "stage": "zero",
  "recompute": "recomp",
  "flash_attention": "flash"
 },
 "limits": {
  "vocab_size": 16777216,
  "context_length": 16777216,
  "num_layers": 4096,
  "d_model": 262144,
  "num_heads": 16384,
  "num_kv_heads": 16384,
  "d_ff": 1048576,
  "seq_len": 16777216,
  "micro_batch": 65536,
  "num_gpus": 1048576,
  "grad_accum": 65536,
  "tokens": 1000000000000000
 },
 "mfu_min": 0.001,
 "token_budgets": {
  "llama2-7b": 2000000000000,
  "llama2-13b": 2000000000000,
  "llama2-70b": 2000000000000,
  "llama3-8b": 15000000000000
 },
 "cuda_context_bytes": 1408237568
};

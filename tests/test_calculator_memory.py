"""The calculator's extra memory lines (:mod:`cs336_lec2.calculator_memory`), against what they stand for."""

from __future__ import annotations

from cs336_lec2.calculator import PRESETS, calculate
from cs336_lec2.calculator_memory import CUDA_CONTEXT_BYTES, largest_fsdp_unit
from cs336_lec2.transformer_accounting import parameter_count


def test_the_cuda_context_is_its_own_line_of_every_configuration():
    # Hugging Face's measurement (model_memory_anatomy.md): 1343 MiB on a V100, "1-2GB" in general
    assert 1e9 <= CUDA_CONTEXT_BYTES <= 2e9 and CUDA_CONTEXT_BYTES == 1343 * 2**20
    for stage in ("dp", "zero3"):
        m = calculate({"model": "gpt2-small", "stage": stage})["memory"]
        assert m["cuda_context"] == CUDA_CONTEXT_BYTES
        rest = sum(v for k, v in m.items() if k not in ("total", "card", "fits", "cuda_context"))
        assert m["total"] == rest + CUDA_CONTEXT_BYTES


def test_the_largest_fsdp_unit_of_llama3_8b_is_its_head():
    config = PRESETS["llama3-8b"].config
    assert largest_fsdp_unit(parameter_count(config), config.num_layers) == 128_256 * 4096 + 4096

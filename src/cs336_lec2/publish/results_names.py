"""The words of the Hardware results page and its machines' column titles, shared by its table
(:mod:`.results_page`) and its figure (:mod:`.results_plot`)."""

from __future__ import annotations

import re
from typing import Any

_TEXT = {
    "en": {
        "none": "No run records are committed yet: run `cs336-lec2 execute` and commit its `run-record.json` "
        "under `book/results/`.",
        "machines": "Machines", "matmul": "Matrix multiplication", "memory": "Memory", "timing": "Timings",
        "what": "", "record": "record", "device": "device", "torch": "torch", "preset": "preset", "date": "date",
        "chapters": "chapters ok / run", "seconds": "time of all chapters",
        "size": "size m×k×n", "measured": "{dtype}: measured", "peak": "{dtype}: dense peak", "mfu": "{dtype}: MFU",
        "ceiling": "{dtype}: measured ceiling (best shape)",
        "mfu_ceiling": "{dtype}: MFU against the measured ceiling",
        "ceiling_note": "MFU is measured ÷ the dense peak (datasheet, or the CPU estimate); the measured ceiling is "
        "the best rate of a sweep of matmul shapes on that machine (chapter 5), and the MFU against it says how "
        "much headroom is left.",
        "estimate": " (estimate)", "memory_note": "Each cell: the measured bytes, then measured ÷ estimate.",
        "sizes_note": "Where the sizes differ between machines (each preset has its own), the row says N "
        "and each cell gives its machine's N; where the settings differ, each cell gives its own in parentheses.",
        "this_build": " (this build)",
        "plot": "MFU of the largest measured matrix multiplication, per machine and dtype.",
        "ylabel": "MFU (measured FLOP/s ÷ dense peak)",
    },
    "zh": {
        "none": "尚未提交任何运行记录：运行 `cs336-lec2 execute`，"
        "并把生成的 `run-record.json` 提交到 `book/results/`。",
        "machines": "机器", "matmul": "矩阵乘法", "memory": "内存", "timing": "计时",
        "what": "", "record": "记录", "device": "设备", "torch": "torch 版本", "preset": "预设规模", "date": "日期",
        "chapters": "成功章节 / 运行章节", "seconds": "全部章节耗时",
        "size": "规模 m×k×n", "measured": "{dtype}：实测", "peak": "{dtype}：稠密峰值", "mfu": "{dtype}：MFU",
        "ceiling": "{dtype}：实测上限（最佳形状）", "mfu_ceiling": "{dtype}：以实测上限为分母的 MFU",
        "ceiling_note": "MFU 是实测速率 ÷ 稠密峰值（数据手册峰值，或 CPU 的估算值）；"
        "实测上限是在该机器上扫描一系列矩阵乘法形状得到的最高速率（第 5 章），"
        "以它为分母的 MFU 说明还剩多少提升空间。",
        "estimate": "（估算值）", "memory_note": "每格先写实测字节数，括号里是实测 ÷ 估算。",
        "sizes_note": "各机器规模不同（每个预设规模各有其尺寸）时，该行以 N 代替尺寸，每格注明本机的 N；"
        "各机器的设置不同时，每格在括号中注明本机的设置。",
        "this_build": "（本次构建）",
        "plot": "各机器、各数据类型下最大一次实测矩阵乘法的 MFU。",
        "ylabel": "MFU",
    },
}

def short_name(record: dict[str, Any]) -> str:
    """A machine's column title: its device without vendor boilerplate (``H100 80GB HBM3``, ``Intel Xeon``)."""
    machine = record["machine"]
    name = str(machine.get("device_name") or machine.get("device") or "?")
    name = re.sub(r"\((R|TM|tm)\)|\bNVIDIA\b|\bProcessor\b|\bCPU\b.*$|\bwith .*$", " ", name)
    name = " ".join(name.split()) or "?"
    return name if machine.get("device_type") != "cpu" or "cpu" in name.lower() else f"{name} CPU"


def _columns(records: list[tuple[str, dict[str, Any]]]) -> list[str]:
    names = [short_name(r) for _, r in records]
    this_build = tuple(t["this_build"] for t in _TEXT.values())
    return [f"{n} ({rec})" if names.count(n) > 1 or rec.endswith(this_build) else n
            for n, (rec, _) in zip(names, records, strict=True)]

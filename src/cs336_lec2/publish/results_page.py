"""Render committed run records (``book/results/*.json``) as tables and a plot for the results page.

A record is what ``cs336-lec2 execute`` writes (:class:`cs336_lec2.publish.execute.RunRecord`). Records from
GPU machines arrive from instructors and render here without code changes: nothing below knows
which machines exist.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MARKER = "<!-- cs336-lec2: results -->"

_TEXT = {
    "en": {
        "none": "No run records are committed yet: run `cs336-lec2 execute` and commit its `run-record.json` "
        "under `book/results/`.",
        "machines": "Machines",
        "matmul": "Matrix multiplication",
        "memory": "Memory: estimate and measurement",
        "machine_cols": ["record", "device", "torch", "preset", "date", "chapters ok/run, total seconds"],
        "matmul_cols": ["device", "dtype", "m×k×n", "TFLOP/s", "peak TFLOP/s", "MFU", "peak from"],
        "memory_cols": ["device", "what", "estimate (bytes)", "measured (bytes)", "measured / estimate"],
        "timing": "Timings",
        "timing_cols": ["device", "what", "seconds"],
        "estimate": "estimate",
        "datasheet": "datasheet",
        "plot": "MFU of the measured matrix multiplications, per machine and dtype.",
        "ylabel": "MFU (measured FLOP/s ÷ dense peak)",
    },
    "zh": {
        "none": "尚未提交任何运行记录：运行 `cs336-lec2 execute`，"
        "并把生成的 `run-record.json` 提交到 `book/results/`。",
        "machines": "机器",
        "matmul": "矩阵乘法",
        "memory": "内存：估算与实测",
        "machine_cols": ["记录", "设备", "torch 版本", "预设规模", "日期", "成功章节数/运行章节数，总耗时（秒）"],
        "matmul_cols": ["设备", "数据类型", "m×k×n", "TFLOP/s", "峰值 TFLOP/s", "MFU", "峰值来源"],
        "memory_cols": ["设备", "项目", "估算（字节）", "实测（字节）", "实测 / 估算"],
        "timing": "计时",
        "timing_cols": ["设备", "项目", "秒"],
        "estimate": "估算值",
        "datasheet": "数据手册",
        "plot": "各机器、各数据类型下实测矩阵乘法的 MFU。",
        "ylabel": "MFU（实测 FLOP/s ÷ 稠密峰值）",
    },
}


def load_record(path: str | Path) -> dict[str, Any]:
    """One run record, checked for the fields the page needs."""
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path.name}: not a valid run record ({err})") from err
    if not isinstance(record, dict) or "machine" not in record or "measurements" not in record:
        raise ValueError(f"{path.name}: a run record needs 'machine' and 'measurements' (see cs336-lec2 execute)")
    return record


def load_records(records_dir: str | Path) -> list[tuple[str, dict[str, Any]]]:
    """``(name, record)`` for every ``*.json`` record in ``records_dir``, sorted by name."""
    return [(path.stem, load_record(path)) for path in sorted(Path(records_dir).glob("*.json"))]


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _device(record: dict[str, Any]) -> str:
    return str(record["machine"].get("device_name") or record["machine"].get("device", "?"))


def _run(name: str, record: dict[str, Any]) -> str:
    """A measurement's row label: the device, and the record it came from (one device may have several)."""
    return f"{_device(record)} ({name})"


def _preset(record: dict[str, Any]) -> str:
    """The preset a run used; records written before execute resolved "auto" get it inferred (CPU: small)."""
    preset = str(record.get("parameters", {}).get("preset", "?"))
    if preset == "auto" and record["machine"].get("device_type") == "cpu":
        return "small (auto)"
    return preset


def _chapters_cell(record: dict[str, Any]) -> str:
    """``ok/run, seconds``: how many chapters ran without error, of how many, and their total seconds."""
    chapters = record.get("chapters", [])
    ok = sum(1 for c in chapters if c.get("ok", c.get("error") is None))
    return f"{ok}/{len(chapters)}, {sum(c.get('seconds', 0) for c in chapters):.0f}"


def render_markdown(records: list[tuple[str, dict[str, Any]]], lang: str, plot_name: str | None) -> str:
    """The Markdown tables (and the plot reference) for one edition."""
    t = _TEXT[lang]
    if not records:
        return t["none"]
    machines = [
        [name, _device(r), str(r["machine"].get("torch", "?")), _preset(r),
         str(r.get("created", "?"))[:10], _chapters_cell(r)]
        for name, r in records
    ]
    parts = [f"## {t['machines']}", _table(t["machine_cols"], machines)]
    matmul = [
        [_run(name, r), str(m["dtype"]), f"{m['m']}×{m['k']}×{m['n']}", f"{m['flops_per_sec'] / 1e12:.3g}",
         f"{m['peak_flops'] / 1e12:.4g}" if m.get("peak_flops") else "–", f"{m['mfu']:.3f}",
         t["estimate"] if m.get("peak_is_estimate") else t["datasheet"]]
        for name, r in records for m in r["measurements"] if m.get("kind") == "matmul"
    ]
    if matmul:
        parts += [f"## {t['matmul']}", _table(t["matmul_cols"], matmul)]
        if plot_name:
            parts.append(f"```{{figure}} {plot_name}\n:alt: {t['plot']}\n\n{t['plot']}\n```")
    memory = [
        [_run(name, r), str(m["label"]), f"{m['estimate_bytes']:,}", f"{m['measured_bytes']:,}",
         f"{m['measured_bytes'] / m['estimate_bytes']:.3f}" if m["estimate_bytes"] else "–"]
        for name, r in records for m in r["measurements"] if m.get("kind") == "memory"
    ]
    if memory:
        parts += [f"## {t['memory']}", _table(t["memory_cols"], memory)]
    timing = [[_run(name, r), str(m["label"]), f"{m['seconds']:.3g}"]
              for name, r in records for m in r["measurements"] if m.get("kind") == "timing"]
    if timing:
        parts += [f"## {t['timing']}", _table(t["timing_cols"], timing)]
    return "\n\n".join(parts)


def plot_mfu(records: list[tuple[str, dict[str, Any]]], path: str | Path, lang: str) -> bool:
    """Bar chart of MFU per machine and dtype (largest size per pair); False if there is nothing to plot."""
    best: dict[tuple[str, str], float] = {}
    sizes: dict[tuple[str, str], int] = {}
    for name, r in records:
        for m in r["measurements"]:
            if m.get("kind") != "matmul":
                continue
            key = (_run(name, r), str(m["dtype"]))
            size = int(m["m"]) * int(m["k"]) * int(m["n"])
            if size >= sizes.get(key, -1):
                sizes[key], best[key] = size, float(m["mfu"])
    if not best:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    devices = sorted({d for d, _ in best})
    dtypes = sorted({t for _, t in best})
    width = 0.8 / len(dtypes)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(devices) + 2), 3.6))
    for i, dtype in enumerate(dtypes):
        xs = [j + i * width for j, d in enumerate(devices) if (d, dtype) in best]
        ys = [best[(d, dtype)] for d in devices if (d, dtype) in best]
        ax.bar(xs, ys, width, label=dtype)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(devices))])
    ax.set_xticklabels([d if len(d) <= 28 else d[:26] + "…" for d in devices], fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel(_TEXT[lang]["ylabel"] if lang == "en" else "MFU")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def fill_results_page(page: Path, records_dir: Path, lang: str, extra: Path | None = None) -> None:
    """Replace :data:`MARKER` in a staged results page with the rendered records (and write the plot).

    ``extra`` is one more record to show beside the committed ones: the run a book is built ``--from``.
    """
    if lang not in _TEXT:
        raise ValueError(f"lang must be one of {sorted(_TEXT)}, got {lang!r}")
    text = page.read_text(encoding="utf-8")
    if MARKER not in text:
        raise ValueError(f"{page.name}: the results page must contain the line {MARKER}")
    records = load_records(records_dir)
    if extra is not None:
        records.append((f"{extra.parent.name} (this build)", load_record(extra)))
    plot_name = "results_mfu.png"
    has_plot = plot_mfu(records, page.parent / plot_name, lang)
    page.write_text(text.replace(MARKER, render_markdown(records, lang, plot_name if has_plot else None)),
                    encoding="utf-8")

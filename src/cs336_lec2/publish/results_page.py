"""Render committed run records (``book/results/*.json``) as the results page: machines side by side.

A record is what ``cs336-lec2 execute`` writes (:class:`cs336_lec2.publish.execute.RunRecord`), checked
on load (:mod:`cs336_lec2.publish.records`). Records from GPU machines arrive from instructors and
render here without code changes: nothing below knows which machines exist. Every comparison is one
table whose columns are the machines; a measurement that every machine made at the same size (a toy
example) is one row, and where the sizes differ (each preset has its own) the row names the sizes
``N`` and each cell says its own. One number format throughout: three significant digits with a
unit chosen per cell (µs/ms/s, B/KiB/MiB/GiB, TFLOP/s). Every cell is escaped, so a record's text
is never read as HTML, Markdown or math.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..bilingual import NAMES_ZH
from .records import load_record, load_records
from .results_names import _TEXT, _columns

MARKER = "<!-- cs336-lec2: results -->"
__all__ = ["MARKER", "fill_results_page", "load_record", "load_records", "mfu_figure", "plot_mfu",
           "render_markdown"]

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# The words of the chapters' measurement labels (English in the records), in the zh edition's terms;
# numbers and identifiers stay as they are.
_ZH_LABEL = (
    (r"training state of (.+?) after Adam", r"Adam 更新后 \1 的训练状态"),
    (r"saved activations of one block", "一个块保存的激活值"),
    (r"Cruncher train step on the device", "Cruncher 在设备上的一个训练步"),
    (r"Transformer training step", "Transformer 的一个训练步"),
    (r"Transformer full training step", "Transformer 完整的一个训练步"),
    (r"^ablation: ", "消融实验："),
    (r"\b(AdamW|AdaGrad) step\b", r"\1 的一步"),
    # a part of the training state (memory.MemoryBreakdown's fields) after a step: its Chinese name
    *((rf"(?<=的一步): {part}$", f": {NAMES_ZH[part]}")
      for part in ("params", "grads", "optimizer_state", "activations", "total")),
    (r"checkpoint file", "检查点文件"),
    (r"host-to-device copy", "主机到设备的复制"),
    (r"\bpageable\b", "可分页内存"),
    (r"\bpinned\b", "锁页内存"),
    (r"\(torch['’]s default on the CPU; the run labelled it foreach\)",
     "（CPU 上 torch 的默认值；该次运行把它标成了 foreach）"),
    (r"\bCUDA peak\b", "CUDA 峰值"),
    (r"\bpackage\b", "辅助包"),
    (r"\(TF32 off\)", "（关闭 TF32）"),
    (r"\bTF32 matmuls\b", "TF32 矩阵乘法"),
    (r"\brank (\d+) of (\d+)\b", r"rank \1（共 \2 个）"),
    (r"\b(N|\d+) params\b", r"\1 个参数"),
    (r"\b(N|\d+) bytes\b", r"\1 字节"),
    # straight quotes become curly ones here: left to Sphinx's smart quotes, "math" rendered as ”math”
    (r'"([^"]*)"', r"“\1”"),
    # Punctuation beside the Chinese words is full-width (TRANSLATING.md), none spaced.
    (r"(?<=[\u4e00-\u9fff）]), ?", "，"),
    (r"(?<=[\u4e00-\u9fff）]): ?", "："),
    (r"\(([^()]*[\u4e00-\u9fff][^()]*)\)", r"（\1）"),
    (r"[ \t]+（", "（"), (r"）[ \t]+", "）"),
)


def zh_label(label: str) -> str:
    """A measurement's label (escaped Markdown, :func:`escape`) with its English words in Chinese."""
    label = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", label)  # undo escape(), translate, escape again
    for pattern, chinese in _ZH_LABEL:
        label = re.sub(pattern, chinese, label)
    return escape(label)
_DEVICE_WORD = re.compile(r"\bon (cpu|cuda(:\d+)?)\b")
_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|$~^&:;=\"'@%,/?])")


def escape(text: object) -> str:
    """``text`` as literal Markdown inline text: control characters become spaces, all ASCII punctuation is
    backslash-escaped (no HTML, no ``|`` breaking a table, no ``$`` starting math, no roles or links)."""
    flat = "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in str(text))
    return _PUNCTUATION.sub(r"\\\1", flat)


def _sig(value: float) -> str:
    """Three significant digits (``0.0622``, ``1.10``, ``53.5``, ``325``); thousands separators from 1,000."""
    if value == 0:
        return "0"
    if abs(value) >= 999.5:
        return f"{value:,.0f}"
    text = f"{value:#.3g}"
    return text.rstrip(".") if "e" not in text else f"{value:.3g}"


def _seconds(s: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if s >= scale or unit == "ns":
            return f"{_sig(s / scale)} {unit}"
    raise AssertionError  # unreachable


def _bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{_sig(n / scale)} {unit}"
    raise AssertionError  # unreachable


def _table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table from already-escaped cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def _chapters(record: dict[str, Any]) -> tuple[str, str]:
    chapters = record.get("chapters", [])
    return f"{sum(1 for c in chapters if c['ok'])} / {len(chapters)}", _seconds(sum(c["seconds"] for c in chapters))


def _preset(record: dict[str, Any]) -> str:
    """The preset a run used; records written before execute resolved "auto" get it inferred (CPU: small)."""
    preset = str(record.get("parameters", {}).get("preset", "?"))
    return "small (auto)" if preset == "auto" and record["machine"].get("device_type") == "cpu" else preset


# A label's trailing settings: the last parenthesised group when it holds a ``=`` (``(4L d=128, B=2, T=64, fp32)``).
_SETTINGS = re.compile(r"^(?P<what>.*?)\s*\((?P<settings>[^()]*=[^()]*)\)\s*$")
# A measured value a chapter also wrote into its label; the record holds it in a field of its own.
_MEASURED = re.compile(r",?\s*\bMFU\s+\d+(?:\.\d+)?")
# Labels that earlier versions of the chapters wrote for what the current ones call otherwise, so that a
# committed record and a new run's meet on one row (chapter 13 said "training step", now "full training step").
_EARLIER = ((re.compile(r"^Transformer training step\b"), "Transformer full training step"),)


def measured_what(m: dict[str, Any]) -> tuple[str, str, float | None]:
    """What a timing or memory measurement measured, split from how it was set up and from what it gave.

    Returns ``(what, settings, mfu)``: the label without its measured values (``MFU 0.326``) and its
    trailing settings, the settings (``""`` if none), and the MFU (the record's field, else the label's).
    Rows of the results page are keyed by ``what``, so a measurement lands on one row on every machine.
    """
    label = " ".join(str(m["label"]).replace("\0", " ").split())
    found = _MEASURED.search(label)
    mfu = m.get("mfu") if isinstance(m.get("mfu"), (int, float)) else (
        float(found.group(0).split()[-1]) if found else None)
    label = _MEASURED.sub("", label).replace("(, ", "(").replace(", )", ")").replace("()", "").strip()
    for pattern, now in _EARLIER:
        label = pattern.sub(now, label)
    split = _SETTINGS.match(label)
    if split is None:
        return label, "", mfu
    return split["what"], split["settings"], mfu


def _keyed(records: list[tuple[str, dict[str, Any]]], kind: str) -> dict[tuple[str, str], list[dict | None]]:
    """Measurements of ``kind`` by (chapter, what they measured with its numbers as placeholders):
    one list slot per machine (:func:`measured_what`)."""
    rows: dict[tuple[str, str], list[dict | None]] = {}
    for column, (_, record) in enumerate(records):
        for m in record["measurements"]:
            if m["kind"] != kind:
                continue
            template = _NUMBER.sub("\0", _DEVICE_WORD.sub("on the device", measured_what(m)[0]))
            key = (str(m.get("chapter") or ""), template)
            while key in rows and rows[key][column] is not None:  # the same label twice in one record
                key = (key[0], key[1] + " ")
            rows.setdefault(key, [None] * len(records))[column] = m
    return rows


def _label_rows(rows: dict[tuple[str, str], list[dict | None]], cell) -> tuple[list[list[str]], bool]:
    """Escaped table rows: the label (numbers that differ between machines as N; settings that differ left to
    the cells) and each machine's cell, with its own N, settings and MFU where it has them."""
    out, any_n = [], False
    for (_, template), slots in rows.items():
        split = [measured_what(m) if m else None for m in slots]
        numbers = [_NUMBER.findall(_DEVICE_WORD.sub("", w[0])) if w else None for w in split]
        present = [n for n in numbers if n is not None]
        varies = [len({n[i] for n in present}) > 1 for i in range(template.count("\0"))]
        settings = {w[1] for w in split if w}
        shared = settings.pop() if len(settings) == 1 else None  # one setting for all: said once, in the label
        parts, label = template.split("\0"), ""
        for i, part in enumerate(parts[:-1]):
            label += escape(part) + ("N" if varies[i] else escape(present[0][i]))
        label = (label + escape(parts[-1])).strip() + (escape(f" ({shared})") if shared else "")
        cells = []
        for m, n, w in zip(slots, numbers, split, strict=True):
            if m is None or w is None:
                cells.append("–")
                continue
            own = [x for x, v in zip(n or [], varies, strict=False) if v]
            any_n |= bool(own)
            notes = ([f"N = {' / '.join(own)}"] if own else []) + ([w[1]] if shared is None and w[1] else [])
            value = cell(m) + (f", MFU {_sig(w[2])}" if w[2] is not None else "")
            cells.append(escape(value + (f" ({'; '.join(notes)})" if notes else "")))
        out.append([label, *cells])
    return out, any_n


def _matmul_rows(matmul: list[list[dict[str, Any]]], t: dict[str, Any]) -> list[list[str]]:
    """Rows of the matmul table: the sizes, then per dtype the measured rate, the peak and the MFU (largest size)."""
    dtypes = list(dict.fromkeys(m["dtype"] for ms in matmul for m in ms))
    largest = [{m["dtype"]: m for m in sorted(ms, key=lambda m: m["m"] * m["k"] * m["n"])} for ms in matmul]
    sizes = [", ".join(dict.fromkeys(f"{m['m']}×{m['k']}×{m['n']}" for m in ms)) or "–" for ms in matmul]

    def rate(m: dict[str, Any]) -> str:
        return f"{_sig(m['flops_per_sec'] / 1e12)} TFLOP/s"

    def peak(m: dict[str, Any]) -> str:
        if not m.get("peak_flops"):
            return "–"
        return f"{_sig(m['peak_flops'] / 1e12)} TFLOP/s" + (t["estimate"] if m.get("peak_is_estimate") else "")

    def ceiling(m: dict[str, Any]) -> str:
        if not m.get("ceiling_flops"):
            return "–"
        return f"{_sig(m['ceiling_flops'] / 1e12)} TFLOP/s" + (f" ({m['ceiling_shape']})" if m.get("ceiling_shape")
                                                              else "")

    def against_ceiling(m: dict[str, Any]) -> str:
        return _sig(m["mfu_ceiling"]) if m.get("mfu_ceiling") is not None else "–"

    fields = [(t["measured"], rate), (t["peak"], peak), (t["mfu"], lambda m: _sig(m["mfu"]))]
    if any(m.get("ceiling_flops") for ms in matmul for m in ms):  # records before issue 39 have no ceiling
        fields += [(t["ceiling"], ceiling), (t["mfu_ceiling"], against_ceiling)]
    rows = [[escape(t["size"]), *[escape(s) for s in sizes]]]
    for dtype in dtypes:
        for title, fmt in fields:
            rows.append([escape(title.format(dtype=dtype)),
                         *[escape(fmt(best[dtype])) if dtype in best else "–" for best in largest]])
    return rows


def render_markdown(records: list[tuple[str, dict[str, Any]]], lang: str, plot_name: str | None) -> str:
    """The Markdown tables (and the plot reference) for one edition: machines as columns."""
    t = _TEXT[lang]
    if not records:
        return t["none"]
    header = [t["what"], *[escape(c).strip() for c in _columns(records)]]
    about = [(t["record"], lambda n, r: n), (t["device"], lambda n, r: r["machine"].get("device_name") or "?"),
             (t["torch"], lambda n, r: r["machine"].get("torch", "?")), (t["preset"], lambda n, r: _preset(r)),
             (t["date"], lambda n, r: str(r.get("created", "?"))[:10]),
             (t["chapters"], lambda n, r: _chapters(r)[0]), (t["seconds"], lambda n, r: _chapters(r)[1])]
    parts = [f"## {t['machines']}", _table(header, [[escape(k), *[escape(f(n, r)) for n, r in records]]
                                                   for k, f in about])]
    matmul = [[m for m in r["measurements"] if m["kind"] == "matmul"] for _, r in records]
    if any(matmul):
        parts += [f"## {t['matmul']}", _table(header, _matmul_rows(matmul, t))]
        if any(m.get("ceiling_flops") for ms in matmul for m in ms):
            parts.append(t["ceiling_note"])
        if plot_name:
            parts.append(f"```{{figure}} {plot_name}\n:alt: {t['plot']}\n\n{t['plot']}\n```")
    notes_n = False
    memory = _keyed(records, "memory")
    if memory:
        rows, notes_n = _label_rows(memory, lambda m: f"{_bytes(m['measured_bytes'])} ("
                                    + (f"{_sig(m['measured_bytes'] / m['estimate_bytes'])}×" if m["estimate_bytes"]
                                       else "–") + ")")
        rows = [[zh_label(r[0]) if lang == "zh" else r[0], *r[1:]] for r in rows]
        parts += [f"## {t['memory']}", t["memory_note"], _table(header, rows)]
    timing = _keyed(records, "timing")
    if timing:
        rows, any_n = _label_rows(timing, lambda m: _seconds(m["seconds"]))
        rows = [[zh_label(r[0]) if lang == "zh" else r[0], *r[1:]] for r in rows]
        notes_n |= any_n
        parts += [f"## {t['timing']}", _table(header, rows)]
    if notes_n:
        parts.append(t["sizes_note"])
    return "\n\n".join(parts)


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
    run = load_record(extra) if extra is not None else None
    # a run already committed to book/results (how_to_run, step 5) is shown once, not twice
    if extra is not None and run is not None and not any(record == run for _, record in records):
        label = extra.parent.name + _TEXT[lang]["this_build"]
        records.append((label, run))
    plot_name = "results_mfu.png"
    has_plot = plot_mfu(records, page.parent / plot_name, lang)
    page.write_text(text.replace(MARKER, render_markdown(records, lang, plot_name if has_plot else None)),
                    encoding="utf-8")


from .results_plot import mfu_figure, plot_mfu  # noqa: E402

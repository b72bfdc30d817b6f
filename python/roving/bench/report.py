"""Writing an experiment's results: markdown, JSON and a PNG chart."""

from __future__ import annotations

import json
import math
import os
from typing import Any

from .harness import Experiment


def write_experiment(
    exp: Experiment, machine: dict[str, Any], out_dir: str, *, chart: bool = True
) -> dict[str, str]:
    """Writes ``<out_dir>/<name>.md``, ``.json`` and (if matplotlib is
    installed and ``chart``) ``.png``. Returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    md = exp.markdown(machine)
    png_path = os.path.join(out_dir, f"{exp.name}.png")
    png_note = None
    if chart and (exp.chart or exp.lines):
        png_note = draw_chart(exp, png_path)
        if png_note is None:
            paths["png"] = png_path
            md += f"\n![{exp.name} chart]({exp.name}.png)\n"
        else:
            md += f"\n_Chart not drawn: {png_note}._\n"
    p = os.path.join(out_dir, f"{exp.name}.md")
    _write_text(p, md)
    paths["md"] = p
    data = exp.to_json(machine)
    if "png" in paths:
        data["chart"] = os.path.basename(png_path)
    p = os.path.join(out_dir, f"{exp.name}.json")
    _write_text(p, json.dumps(data, indent=2, ensure_ascii=False, default=_json_default) + "\n")
    paths["json"] = p
    return paths


def _json_default(o: Any) -> Any:
    if hasattr(o, "to_json"):
        return o.to_json()
    return str(o)


def _write_text(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def draw_chart(exp: Experiment, path: str) -> str | None:
    """One PNG per experiment: a panel per operation, a bar per contender.
    Returns None on success, else why no chart was drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib)"
    panels: list[tuple[str, list[tuple[str, float]], str]] = []
    for spec in exp.chart:
        title, all_bars = spec[0], spec[1]
        unit = spec[2] if len(spec) > 2 else "s"
        bars = [(label, v) for label, v in all_bars if v is not None and v > 0]
        if bars:
            panels.append((title, bars, unit))
    lines = [p for p in exp.lines if any(p[1].values())]
    if not panels and not lines:
        return "no measurements"
    total = len(panels) + len(lines)
    ncols = 2 if total > 1 else 1
    nrows = math.ceil(total / ncols)
    height = max([len(p[1]) * 0.28 + 1.2 for p in panels] + [3.6 if lines else 0])
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.2 * ncols, height * nrows), squeeze=False)
    for ax in axes.flat[total:]:
        ax.set_visible(False)
    for ax, (title, series, xlabel, ylabel) in zip(axes.flat[len(panels) :], lines, strict=False):
        _draw_lines(ax, title, series, xlabel, ylabel)
    for ax, (title, bars, unit) in zip(axes.flat, panels, strict=False):
        labels = [b[0] for b in bars]
        values = [b[1] for b in bars]
        if unit == "s":
            scale, unit_label = _time_scale(values)
        elif unit == "bytes" and max(values) >= 10_000:
            scale, unit_label = (1e6, "MB") if max(values) >= 10_000_000 else (1e3, "kB")
        else:
            scale, unit_label = 1.0, unit
        vals = [v / scale for v in values]
        colors = ["#d1495b" if lab.startswith("roving") else "#4b6a88" for lab in labels]
        y = range(len(labels))
        ax.barh(list(y), vals, color=colors)
        ax.set_yticks(list(y))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        if min(vals) > 0 and max(vals) / min(vals) > 50:
            ax.set_xscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(f"{unit_label} (lower is better)" if unit == "s" else unit_label, fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
        for yi, v in zip(y, vals, strict=False):
            ax.text(v, yi, f" {_short(v)}", va="center", fontsize=7)
        ax.margins(x=0.18)
    fig.suptitle(exp.title, fontsize=11)
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=80)
    plt.close(fig)
    os.replace(tmp, path)
    return None


def _draw_lines(
    ax: Any, title: str, series: dict[str, list[tuple[float, float]]], xlabel: str, ylabel: str
) -> None:
    """One line per series, both axes logarithmic (roving's in red shades)."""
    for name, points in series.items():
        pts = [(x, y) for x, y in points if x > 0 and y > 0]
        if not pts:
            continue
        style = "-" if name.startswith("roving") else "--"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=7)


def _time_scale(values: list[float]) -> tuple[float, str]:
    m = sorted(values)[len(values) // 2]
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if m >= scale:
            return scale, unit
    return 1e-9, "ns"


def _short(v: float) -> str:
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2g}" if v < 1 else f"{v:.2f}"

#!/usr/bin/env python3
"""The performance targets of issue #10, checked against one bench/run.sh run.

usage: targets.py RAW.jsonl OUT.md

Every figure is a median over the rounds of that run; a ratio is the ratio of two medians from the
same run. The per-round ratios follow in brackets, to show the spread."""

import collections
import json
import statistics
import sys


def load(path):
    """raw.jsonl -> {(impl, transport, metric): [row, ...]}; lines that are not JSON are skipped."""
    rows = collections.defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            rows[(row.get("impl"), row.get("transport"), row.get("metric"))].append(row)
    return rows


class Run:
    """Medians and per-round values of one run."""

    def __init__(self, rows):
        self.rows = rows

    def per_round(self, impl, transport, metric, field):
        out = {}
        for row in self.rows.get((impl, transport, metric), []):
            value = row.get(field)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[row.get("round")] = value
        return out

    def median(self, impl, transport, metric, field):
        values = list(self.per_round(impl, transport, metric, field).values())
        return statistics.median(values) if values else None


class Measure:
    """One side of a target: a field of a metric of an implementation (optionally scaled)."""

    def __init__(self, impl, transport, metric, field, scale=1.0):
        self.key = (impl, transport, metric, field)
        self.scale = scale

    def median(self, run):
        m = run.median(*self.key)
        return None if m is None else m * self.scale

    def per_round(self, run):
        return {r: v * self.scale for r, v in run.per_round(*self.key).items()}


def fmt(value, digits=2):
    return "–" if value is None else f"{value:,.{digits}f}"


def ratio_row(run, name, ours, ref, op, goal, lower_is_better=False):
    """A target on ours ÷ ref."""
    a, b = ours.median(run), ref.median(run)
    value = a / b if a is not None and b else None
    rounds_a, rounds_b = ours.per_round(run), ref.per_round(run)
    spread = [rounds_a[r] / rounds_b[r] for r in sorted(rounds_a) if rounds_b.get(r)]
    detail = f"{fmt(a, 1)} ÷ {fmt(b, 1)}"
    if spread:
        detail += " [" + ", ".join(fmt(x) for x in spread) + "]"
    return verdict(name, value, op, goal, detail, lower_is_better)


def absolute_row(run, name, measure, op, goal, unit, detail=""):
    """A target on a value of ours alone."""
    value = measure.median(run)
    spread = [fmt(v, 1) for _, v in sorted(measure.per_round(run).items())]
    text = f"{fmt(value, 1)} {unit}" + (f" [{', '.join(spread)}]" if spread else "")
    if detail:
        text += f"; {detail}"
    return verdict(name, value, op, goal, text, op == "≤")


def verdict(name, value, op, goal, detail, lower_is_better):
    if value is None:
        result = "not measured"
    elif lower_is_better or op == "≤":
        result = "PASS" if value <= goal else "FAIL"
    else:
        result = "PASS" if value >= goal else "FAIL"
    shown = "–" if value is None else fmt(value)
    return f"| {name} | {shown} | {op} {goal:g} | {result} | {detail} |"


def rss_detail(run):
    """How many calls ours had served when its stdio peak RSS was read (seq + pipelined)."""
    seq = run.per_round("ours", "stdio", "seq", "n")
    pipe = run.per_round("ours", "stdio", "pipe", "n")
    served = [seq[r] + pipe[r] for r in sorted(seq) if r in pipe]
    if not served:
        return "calls served before the reading: unknown"
    note = f"read after {min(served):,}+ calls (seq + pipelined, plus warm-up)"
    if min(served) < 100_000:
        note += ": fewer than the 100k the target asks for (QUICK run?)"
    return note


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    run = Run(load(sys.argv[1]))

    def stdio(impl, metric, field, scale=1.0):
        return Measure(impl, "stdio", metric, field, scale)

    def http(impl, metric, field="calls_per_s"):
        return Measure(impl, "http", metric, field)

    rows = [
        ratio_row(run, "stdio pipelined calls/s, ours ÷ raw-rust",
                  stdio("ours", "pipe", "calls_per_s"), stdio("raw-rust", "pipe", "calls_per_s"),
                  "≥", 0.7),
        ratio_row(run, "stdio pipelined server CPU µs/call, ours ÷ raw-rust",
                  stdio("ours", "pipe", "srv_cpu_us_per_call"),
                  stdio("raw-rust", "pipe", "srv_cpu_us_per_call"), "≤", 3, lower_is_better=True),
        ratio_row(run, "stdio sequential calls/s, ours ÷ rmcp-stdio_pipes",
                  stdio("ours", "seq", "calls_per_s"),
                  stdio("rmcp-stdio_pipes", "seq", "calls_per_s"), "≥", 1),
        absolute_row(run, "stdio peak RSS of ours (VmHWM), MiB",
                     stdio("ours", "rss", "vmhwm_kib", 1 / 1024), "≤", 3, "MiB", rss_detail(run)),
        ratio_row(run, "stdio startup p50, ours ÷ raw-rust",
                  stdio("ours", "startup", "p50_ms"), stdio("raw-rust", "startup", "p50_ms"),
                  "≤", 1.2, lower_is_better=True),
        ratio_row(run, "HTTP C=32 calls/s, ours (stateful) ÷ raw-hyper",
                  http("ours", "http_c32"), http("raw-hyper", "http_c32"), "≥", 0.5),
        ratio_row(run, "HTTP C=32 calls/s, ours-stateless ÷ raw-hyper",
                  http("ours-stateless", "http_c32"), http("raw-hyper", "http_c32"), "≥", 0.5),
        ratio_row(run, "HTTP C=32 calls/s, ours-stateless ÷ raw-hyper-stateless",
                  http("ours-stateless", "http_c32"), http("raw-hyper-stateless", "http_c32"),
                  "≥", 0.5),
        ratio_row(run, "HTTP C=32 calls/s, 2026-07-28 stateless POSTs, ours-table-modern ÷ raw-hyper-stateless-modern (issue 17: the same tool on both)",
                  http("ours-table-modern", "http_c32"),
                  http("raw-hyper-stateless-modern", "http_c32"), "≥", 0.8),
        ratio_row(run, "HTTP C=32 calls/s, 2026-07-28 stateless POSTs, ours-modern (weather-server, its weather model included) ÷ raw-hyper-stateless-modern",
                  http("ours-modern", "http_c32"), http("raw-hyper-stateless-modern", "http_c32"),
                  "≥", 0.8),
        ratio_row(run, "HTTP C=1 calls/s, ours (stateful) ÷ raw-hyper",
                  http("ours", "http_c1"), http("raw-hyper", "http_c1"), "≥", 0.8),
        ratio_row(run, "HTTP C=1 calls/s, ours-stateless ÷ raw-hyper",
                  http("ours-stateless", "http_c1"), http("raw-hyper", "http_c1"), "≥", 0.8),
        ratio_row(run, "HTTP C=1 calls/s, ours-stateless ÷ raw-hyper-stateless",
                  http("ours-stateless", "http_c1"), http("raw-hyper-stateless", "http_c1"),
                  "≥", 0.8),
        absolute_row(run, "memory per idle HTTP session of ours, KiB",
                     Measure("ours", "http", "idle_session", "bytes_per_session", 1 / 1024),
                     "≤", 8, "KiB", idle_detail(run)),
        ratio_row(run, "client calls/s, ours-client ÷ rmcp-client",
                  Measure("ours-client", "stdio", "client", "calls_per_s"),
                  Measure("rmcp-client", "stdio", "client", "calls_per_s"), "≥", 1.4),
    ]
    # The static build of scripts/build-static.sh, shown beside the targets only: the targets
    # count the plain `cargo build --release` binary, the one README's first command builds.
    plain = [
        ratio_row(run, "stdio pipelined calls/s, ours-static ÷ raw-rust",
                  stdio("ours-static", "pipe", "calls_per_s"),
                  stdio("raw-rust", "pipe", "calls_per_s"), "≥", 0.7),
        absolute_row(run, "stdio peak RSS of ours-static (VmHWM), MiB",
                     stdio("ours-static", "rss", "vmhwm_kib", 1 / 1024), "≤", 3, "MiB", ""),
        ratio_row(run, "stdio startup p50, ours-static ÷ raw-rust",
                  stdio("ours-static", "startup", "p50_ms"),
                  stdio("raw-rust", "startup", "p50_ms"), "≤", 1.2, lower_is_better=True),
    ]
    rounds = sorted({r.get("round") for rs in run.rows.values() for r in rs
                     if r.get("round") is not None})
    lines = [
        "## Targets (issue #10)",
        "",
        f"Medians over {len(rounds)} round(s); ratios are ratios of medians from this run, "
        "per-round ratios (or values) in brackets.",
        "",
        "| target | measured | goal | result | detail: ours ÷ reference [per round] |",
        "|---|---:|---|---|---|",
        *rows,
        "",
    ]
    passed = sum("| PASS |" in r for r in rows)
    failed = sum("| FAIL |" in r for r in rows)
    missing = sum("| not measured |" in r for r in rows)
    lines.append(f"{passed} pass, {failed} fail, {missing} not measured.")
    lines += [
        "",
        "For comparison, not targets: weather-server as scripts/build-static.sh links it "
        "(static, hot-code layout) instead of the plain `cargo build --release` binary.",
        "",
        "| measure | measured | goal | result | detail: ours ÷ reference [per round] |",
        "|---|---:|---|---|---|",
        *plain,
    ]
    text = "\n".join(lines) + "\n"
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(text)


def idle_detail(run):
    rows = run.rows.get(("ours", "http", "idle_session"), [])
    if not rows:
        return ""
    sessions = sorted({r.get("sessions") for r in rows})
    return "sessions held: " + "/".join(f"{s:,}" for s in sessions if isinstance(s, int))


if __name__ == "__main__":
    main()

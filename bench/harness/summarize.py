#!/usr/bin/env python3
"""Medians and ratios of one benchmark run.

usage: summarize.py RAW.jsonl OUTDIR

RAW.jsonl holds one JSON line per measurement per round (mcpbench's lines and the clients' lines,
each tagged with "round"). Writes OUTDIR/summary.md (tables: stdio, Streamable HTTP, ratios to the
references rmcp, raw-rust and raw-hyper, clients against rmcp-client, and the per-round spread) and
OUTDIR/summary.json (the same medians), and prints summary.md."""

import json
import statistics
import sys
from collections import defaultdict

# (column key, metric, field) of every median the tables use, per section.
STDIO = [
    ("startup_ms", "startup", "p50_ms"),
    ("seq_p50_us", "seq", "p50_us"),
    ("seq_p99_us", "seq", "p99_us"),
    ("seq_calls_s", "seq", "calls_per_s"),
    ("pipe_calls_s", "pipe", "calls_per_s"),
    ("rss_mib", "rss", "vmhwm_mib"),
    ("seq_cpu_us", "seq", "srv_cpu_us_per_call"),
    ("pipe_cpu_us", "pipe", "srv_cpu_us_per_call"),
]
HTTP = [
    ("c1_calls_s", "http_c1", "calls_per_s"),
    ("c1_p50_us", "http_c1", "p50_us"),
    ("c1_p99_us", "http_c1", "p99_us"),
    ("c32_calls_s", "http_c32", "calls_per_s"),
    ("c32_p50_us", "http_c32", "p50_us"),
    ("c32_p99_us", "http_c32", "p99_us"),
    ("rss_mib", "rss", "vmhwm_mib"),
    ("c1_cpu_us", "http_c1", "srv_cpu_us_per_call"),
    ("c32_cpu_us", "http_c32", "srv_cpu_us_per_call"),
]
CLIENT = [
    ("calls_s", "client", "calls_per_s"),
    ("p50_us", "client", "p50_us"),
    ("p99_us", "client", "p99_us"),
]


def read_rows(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return rows


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Run:
    def __init__(self, rows):
        self.rows = rows
        self.by_key = defaultdict(list)
        for row in rows:
            self.by_key[(row.get("impl"), row.get("transport"), row.get("metric"))].append(row)

    def impls(self, keep):
        """Implementations in order of first appearance, among rows KEEP accepts."""
        return list(dict.fromkeys(r.get("impl") for r in self.rows if keep(r)))

    def values(self, impl, transport, metric, field):
        return [r[field] for r in self.by_key[(impl, transport, metric)] if is_number(r.get(field))]

    def median(self, impl, transport, metric, field):
        values = self.values(impl, transport, metric, field)
        return statistics.median(values) if values else None

    def sizes(self, impl, transport, metric):
        return sorted({r["n"] for r in self.by_key[(impl, transport, metric)] if is_number(r.get("n"))})

    def section(self, impl, transport, columns, counted):
        out = {key: self.median(impl, transport, metric, field) for key, metric, field in columns}
        out["rounds"] = len(self.values(impl, transport, counted, "calls_per_s"))
        return out

    def errors(self):
        return [r for r in self.rows if "error" in r and not is_number(r.get("error"))]


def number(value, decimals=0):
    return "–" if value is None else f"{value:,.{decimals}f}"


def ratio(value, reference):
    return "–" if not value or not reference else f"{value / reference:.2f}"


def sizes_text(sizes):
    return "/".join(str(n) for n in sizes) or "–"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw, outdir = sys.argv[1], sys.argv[2]
    run = Run(read_rows(raw))
    stdio_impls = run.impls(lambda r: r.get("transport") == "stdio" and r.get("metric") != "client")
    http_impls = run.impls(lambda r: r.get("transport") == "http")
    client_impls = run.impls(lambda r: r.get("metric") == "client")

    summary = {"stdio": {}, "http": {}, "client": {}, "errors": run.errors()}
    for impl in stdio_impls:
        s = run.section(impl, "stdio", STDIO, "seq")
        s["seq_n"] = run.sizes(impl, "stdio", "seq")
        s["pipe_n"] = run.sizes(impl, "stdio", "pipe")
        s["seq_calls_s_all"] = run.values(impl, "stdio", "seq", "calls_per_s")
        s["pipe_calls_s_all"] = run.values(impl, "stdio", "pipe", "calls_per_s")
        summary["stdio"][impl] = s
    for impl in http_impls:
        s = run.section(impl, "http", HTTP, "http_c1")
        s["c1_n"] = run.sizes(impl, "http", "http_c1")
        s["c32_n"] = run.sizes(impl, "http", "http_c32")
        s["c1_calls_s_all"] = run.values(impl, "http", "http_c1", "calls_per_s")
        s["c32_calls_s_all"] = run.values(impl, "http", "http_c32", "calls_per_s")
        summary["http"][impl] = s
    for impl in client_impls:
        s = run.section(impl, "stdio", CLIENT, "client")
        s["n"] = run.sizes(impl, "stdio", "client")
        summary["client"][impl] = s

    md = ["## stdio (medians over rounds)", ""]
    md += table(
        ["impl", "startup ms", "seq p50 µs", "seq p99 µs", "seq calls/s", "seq N",
         "pipelined calls/s (K=64)", "pipe N", "peak RSS MiB", "srv CPU µs/call seq",
         "srv CPU µs/call pipe", "rounds"],
        [[impl, number(s["startup_ms"], 1), number(s["seq_p50_us"]), number(s["seq_p99_us"]),
          number(s["seq_calls_s"]), sizes_text(s["seq_n"]), number(s["pipe_calls_s"]),
          sizes_text(s["pipe_n"]), number(s["rss_mib"], 1), number(s["seq_cpu_us"], 1),
          number(s["pipe_cpu_us"], 1), s["rounds"]] for impl, s in summary["stdio"].items()])
    md += ["", "## Streamable HTTP (medians over rounds; C = concurrent connections, one session each)", ""]
    md += table(
        ["impl", "C=1 calls/s", "C=1 p50 µs", "C=1 p99 µs", "C=32 calls/s", "C=32 p50 µs",
         "C=32 p99 µs", "N per C level", "peak RSS MiB", "srv CPU µs/call C=1",
         "srv CPU µs/call C=32", "rounds"],
        [[impl, number(s["c1_calls_s"]), number(s["c1_p50_us"]), number(s["c1_p99_us"]),
          number(s["c32_calls_s"]), number(s["c32_p50_us"]), number(s["c32_p99_us"]),
          sizes_text(s["c1_n"]), number(s["rss_mib"], 1), number(s["c1_cpu_us"], 1),
          number(s["c32_cpu_us"], 1), s["rounds"]] for impl, s in summary["http"].items()])

    rmcp = summary["stdio"].get("rmcp", {})
    raw_rust = summary["stdio"].get("raw-rust", {})
    md += ["", "## Ratios (stdio). Throughput: above 1 is better than the reference; start-up, "
           "RSS, latency and CPU: implementation ÷ reference, below 1 is better", ""]
    stdio_ratios = []
    for impl, s in summary["stdio"].items():
        stdio_ratios.append([impl] + [
            ratio(s[key], ref.get(key))
            for key, ref in [("seq_calls_s", rmcp), ("seq_calls_s", raw_rust),
                             ("pipe_calls_s", rmcp), ("pipe_calls_s", raw_rust),
                             ("seq_p50_us", rmcp), ("startup_ms", rmcp), ("rss_mib", rmcp),
                             ("rss_mib", raw_rust), ("pipe_cpu_us", rmcp),
                             ("pipe_cpu_us", raw_rust)]])
    md += table(["impl", "seq calls/s ÷ rmcp", "seq ÷ raw-rust", "pipe ÷ rmcp", "pipe ÷ raw-rust",
                 "seq p50 ÷ rmcp", "startup ÷ rmcp", "RSS ÷ rmcp", "RSS ÷ raw-rust",
                 "pipe CPU/call ÷ rmcp", "pipe CPU/call ÷ raw-rust"], stdio_ratios)

    rmcp_http = summary["http"].get("rmcp", {})
    raw_hyper = summary["http"].get("raw-hyper", {})
    md += ["", "## Ratios (HTTP) to rmcp (stateful) and to raw-hyper (stateful, the hand-written "
           "hyper server)", ""]
    http_ratios = []
    for impl, s in summary["http"].items():
        http_ratios.append([impl] + [
            ratio(s[key], ref.get(key))
            for key, ref in [("c1_calls_s", rmcp_http), ("c32_calls_s", rmcp_http),
                             ("rss_mib", rmcp_http), ("c32_cpu_us", rmcp_http),
                             ("c1_calls_s", raw_hyper), ("c32_calls_s", raw_hyper),
                             ("c32_cpu_us", raw_hyper)]])
    md += table(["impl", "C=1 calls/s ÷ rmcp", "C=32 calls/s ÷ rmcp", "RSS ÷ rmcp",
                 "C=32 CPU/call ÷ rmcp", "C=1 calls/s ÷ raw-hyper", "C=32 calls/s ÷ raw-hyper",
                 "C=32 CPU/call ÷ raw-hyper"], http_ratios)

    rmcp_client = summary["client"].get("rmcp-client", {})
    md += ["", "## Clients: sequential tools/call against the raw Rust stdio server", ""]
    md += table(["client", "calls/s", "p50 µs", "p99 µs", "N", "calls/s ÷ rmcp-client", "rounds"],
                [[impl, number(s["calls_s"]), number(s["p50_us"]), number(s["p99_us"]),
                  sizes_text(s["n"]), ratio(s["calls_s"], rmcp_client.get("calls_s")), s["rounds"]]
                 for impl, s in summary["client"].items()])

    md += ["", "## Per-round throughput (the spread behind each median)", ""]
    for impl, s in summary["stdio"].items():
        md.append(f"- stdio {impl}: seq {[round(v) for v in s['seq_calls_s_all']]}, "
                  f"pipe {[round(v) for v in s['pipe_calls_s_all']]}")
    for impl, s in summary["http"].items():
        md.append(f"- http {impl}: C=1 {[round(v) for v in s['c1_calls_s_all']]}, "
                  f"C=32 {[round(v) for v in s['c32_calls_s_all']]}")
    if summary["errors"]:
        md += ["", "## Errors", ""] + [f"- {json.dumps(e)}" for e in summary["errors"]]

    text = "\n".join(md) + "\n"
    with open(f"{outdir}/summary.md", "w", encoding="utf-8") as f:
        f.write(text)
    with open(f"{outdir}/summary.json", "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    print(text, end="")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Bar chart of `heartsim bench spmv --csv` results, in the manner of seed 002 Fig. 12.

    python3 scripts/plot_spmv.py OUT.png RUN.csv [RUN2.csv ...] [--metric eff_gbs|traffic_over_copy|gflops|spmv_us]

One group of bars per CSV file (one matrix each, labelled by the matrix file and its size), one bar
per kernel, in the order of the first file. With the default metric (eff_gbs: seed 002's effective
bandwidth, 20 bytes per nonzero over the median SpMV time) each group also shows the copy bandwidth
measured in the same run as a dashed line, the ceiling the kernels are compared with. Kernels that
FAILED their check have no bar and are marked "FAILED" at the axis.

Needs matplotlib: Debian/Ubuntu `apt-get install python3-matplotlib` (then run the script with the
system's /usr/bin/python3), or `pip install matplotlib`.
"""
import argparse
import csv
import os
import sys

METRICS = {
    "eff_gbs": "effective bandwidth (GB/s, seed 002: 20 B per nonzero)",
    "traffic_over_copy": "least CSR traffic / time, fraction of copy bandwidth",
    "gflops": "GFLOP/s (2 nnz / t)",
    "spmv_us": "median SpMV time (us)",
}


def read_run(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no kernels in the file (is it a `heartsim bench spmv --csv` output?)")
    need = {"kernel", "status", "eff_gbs", "copy_bw_gbs", "matrix", "n_rows", "nnz"}
    missing = need - set(rows[0].keys())
    if missing:
        sys.exit(f"{path}: not a `heartsim bench spmv --csv` file: columns {sorted(missing)} missing")
    return rows


def label_of(rows):
    r = rows[0]
    name = os.path.basename(r["matrix"]) or r["matrix"]
    return f"{name}\n{int(r['n_rows']):,} rows, {int(r['nnz']):,} nnz"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="PNG file to write")
    ap.add_argument("csv", nargs="+", help="CSV files written by `heartsim bench spmv --csv`")
    ap.add_argument("--metric", default="eff_gbs", choices=sorted(METRICS), help="what the bars show")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit(
            f"plot_spmv.py: matplotlib is not available to {sys.executable}.\n"
            "  Debian/Ubuntu: apt-get install python3-matplotlib, then run /usr/bin/python3 scripts/plot_spmv.py ...\n"
            "  elsewhere:     pip install matplotlib"
        )

    runs = [read_run(p) for p in args.csv]
    kernels = []
    for rows in runs:
        for r in rows:
            if r["kernel"] not in kernels:
                kernels.append(r["kernel"])

    n_k = len(kernels)
    width = 0.8 / n_k
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 + 0.35 * n_k * len(runs)), 4.8))
    cmap = plt.get_cmap("tab20" if n_k > 10 else "tab10")
    for ki, k in enumerate(kernels):
        xs, ys = [], []
        for gi, rows in enumerate(runs):
            r = next((r for r in rows if r["kernel"] == k), None)
            x = gi - 0.4 + width * (ki + 0.5)
            if r is None:
                continue
            if r["status"] != "ok" or r[args.metric] == "":
                ax.text(x, 0, "FAILED", rotation=90, ha="center", va="bottom", fontsize=7, color="red")
                continue
            xs.append(x)
            ys.append(float(r[args.metric]))
        ax.bar(xs, ys, width=width, label=k, color=cmap(ki % cmap.N))
    if args.metric == "eff_gbs":
        for gi, rows in enumerate(runs):
            bw = float(rows[0]["copy_bw_gbs"])
            ax.hlines(bw, gi - 0.45, gi + 0.45, colors="black", linestyles="dashed",
                      label="copy bandwidth (same run)" if gi == 0 else None)
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels([label_of(rows) for rows in runs], fontsize=8)
    ax.set_ylabel(METRICS[args.metric])
    device = runs[0][0].get("device", "")
    ax.set_title(args.title or f"heartsim bench spmv on {device}", fontsize=10)
    ax.legend(fontsize=7, ncol=2 if n_k > 6 else 1, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=150)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

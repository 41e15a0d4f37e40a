#!/usr/bin/env python3
"""Single-GPU compute micro-benchmarks with plain PyTorch ops (bf16 / fp16 / fp8).

Usage:
    python3 scripts/device/torch_compute_bench.py --out OUT.json [--quick]

Needs torch with CUDA (written for torch 2.11 + CUDA 13 on one H200) and
nothing else; no network.  Progress lines go to stderr; results go to one JSON
file, written atomically (OUT.json.tmp, then os.replace) after every section,
so a partial file exists even if the run is cut short.

Timing method (all sections): CUDA events on the current stream.  3 warm-up
iterations (the last two also give a per-iteration estimate), then N timed
iterations, each between its own start/end event pair, with N chosen so that
the N iterations take about --target-ms (default 30 ms) of GPU time, at least
5 and at most 1000.  The reported time is the median of the N per-iteration
times (min/max/mean are recorded too).  For kernels shorter than 0.5 ms the
stream is first held by a spin kernel (torch.cuda._sleep) so that the CPU can
queue the iterations ahead of the GPU and launch gaps are not measured.
torch.cuda.synchronize() is called before and after every timed loop.

Sections ("sections" in the JSON), each in its own try/except (an error is
recorded as a string, the run goes on), under one global time budget that is
split across sections (unused time rolls over to later sections):

1. layer: forward and forward+backward of one Megatron-style GPT layer, bf16,
   tensor parallel 1, built from plain ops (layer_norm, F.linear = one GEMM,
   SDPA flash attention, dropout, tanh-GELU, residual adds).  Shapes
   s = seq, b = micro batch, h = hidden, f = ffn, d = h / heads:
       GEMM fwd FLOPs  = 2*s*b*(3h*h + h*h + 2*h*f)
       attn fwd FLOPs  = 2*b*heads*s*s*d          (= 4*b*s*s*h / 2, causal)
       bwd FLOPs       = 2 * GEMM fwd + 2.5 * attn fwd
       fwd+bwd FLOPs   = 3 * GEMM fwd + 3.5 * attn fwd
   (model FLOPs of GEMMs and attention only; elementwise ops not counted).
2. flash_attention: F.scaled_dot_product_attention, causal, bf16, forward
   alone and backward alone (torch.autograd.grad with retain_graph on a fixed
   forward).  fwd FLOPs = 2*b*heads*s*s*d, bwd FLOPs = 2.5 * fwd.  If time
   allows the cuDNN attention backend is timed on the same shapes as well.
3. elementwise: memory-bound ops on bf16 tensors sized for ~512 MiB of
   traffic.  bytes = 2 * numel * (tensors read + tensors written), GB/s = 1e9
   bytes/s; also given as a share of the device-to-device copy's GB/s.
4. gemm: C = A @ B, A [m,k] row-major, B = W.t() with W [n,k] contiguous
   (the F.linear layout), in bf16 and fp16 via torch.matmul and fp8 e4m3 via
   torch._scaled_mm (unit scales, bf16 output).  FLOPs = 2*m*n*k.

TFLOP/s = FLOPs / median seconds / 1e12.
"""

import argparse
import contextlib
import gc
import json
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import threading
import time
import traceback
import warnings

T0 = time.monotonic()

# --------------------------------------------------------------------------
# Benchmark definitions
# --------------------------------------------------------------------------

# (hidden, heads, ffn, seq, micro_batch)
LAYER_CONFIGS = [
    (2048, 16, 8192, 2048, 4),
    (4096, 32, 16384, 2048, 2),
    (5120, 40, 20480, 2048, 2),
    (8192, 64, 32768, 2048, 1),
    (12288, 96, 49152, 2048, 1),
    (16384, 128, 65536, 2048, 1),
    (8192, 64, 32768, 4096, 1),
]
LAYER_CONFIGS_QUICK = LAYER_CONFIGS[:2]

# (batch, heads, seq, head_dim)
FLASH_CONFIGS = [
    (4, 16, 2048, 128),
    (2, 32, 2048, 128),
    (1, 64, 4096, 128),
    (1, 96, 2048, 128),
    (1, 32, 8192, 128),
    (8, 32, 1024, 64),
]
FLASH_CONFIGS_QUICK = FLASH_CONFIGS[:2]

# (m, n, k)
GEMM_SHAPES = [
    (8192, 8192, 8192),
    (4096, 12288, 4096),
    (16384, 4096, 4096),
    (2048, 49152, 12288),
    (4096, 4096, 16384),
    (2048, 2048, 2048),
    (1024, 1024, 1024),
    (512, 512, 512),
]
GEMM_SHAPES_QUICK = [(8192, 8192, 8192), (4096, 12288, 4096), (2048, 2048, 2048)]
GEMM_DTYPES = ("bf16", "fp16", "fp8_e4m3", "fp8_e4m3_fast_accum")

ELEMENTWISE_TRAFFIC_BYTES = 512 * 2**20  # bytes read + written per op
BF16_BYTES = 2
LAYERNORM_HIDDEN = 8192
SOFTMAX_WIDTH = 2048

DROPOUT_P = 0.1
WARMUP_ITERS = 3
MIN_ITERS = 5
MAX_ITERS = 1000
SPIN_BELOW_MS = 0.5        # prefill the stream for kernels shorter than this
SPIN_PER_ITER_MS = 0.03    # CPU time budgeted per queued iteration
SPIN_MAX_MS = 100.0
SPIN_CLOCK_HZ = 1.98e9     # cycles -> seconds for torch.cuda._sleep (approx.)

# Relative share of the global budget per section (in run order).
SECTION_WEIGHTS = [("layer", 4.0), ("flash_attention", 2.0),
                   ("elementwise", 1.0), ("gemm", 3.0)]

# --------------------------------------------------------------------------
# Pure-Python helpers (no torch needed)
# --------------------------------------------------------------------------


def elapsed():
    return time.monotonic() - T0


def log(msg):
    print("[%7.2fs] %s" % (elapsed(), msg), file=sys.stderr, flush=True)


def err_str(exc, limit=1500):
    msg = " | ".join(line.strip() for line in str(exc).strip().splitlines()
                     if line.strip())
    if len(msg) > limit:
        msg = msg[:limit] + "..."
    return "%s: %s" % (type(exc).__name__, msg)


def count_keys(obj, key):
    """Number of dicts below obj that contain key."""
    if isinstance(obj, dict):
        return int(key in obj) + sum(count_keys(v, key) for v in obj.values())
    if isinstance(obj, list):
        return sum(count_keys(v, key) for v in obj)
    return 0


def layer_flops(hidden, heads, ffn, seq, micro_batch):
    """Model FLOPs of one GPT layer (GEMMs + causal attention)."""
    h, f, s, b = hidden, ffn, seq, micro_batch
    d = h // heads
    gemm_fwd = 2 * s * b * (3 * h * h + h * h + 2 * h * f)
    attn_fwd = 2 * b * heads * s * s * d
    attn_bwd = attn_fwd * 5 // 2          # exact: attn_fwd is even
    return {
        "gemm_fwd": gemm_fwd,
        "attn_fwd": attn_fwd,
        "fwd": gemm_fwd + attn_fwd,
        "bwd": 2 * gemm_fwd + attn_bwd,
        "fwd_bwd": 3 * gemm_fwd + attn_fwd + attn_bwd,
    }


def attention_flops(batch, heads, seq, head_dim, causal=True):
    full = 4 * batch * heads * seq * seq * head_dim   # QK^T and PV
    fwd = full // 2 if causal else full
    return {"fwd": fwd, "bwd": fwd * 5 // 2}


def gemm_flops(m, n, k):
    return 2 * m * n * k


def tflops(flops, ms):
    if not ms or ms <= 0 or flops is None:
        return None
    return flops / (ms * 1e-3) / 1e12


def gbps(nbytes, ms):
    if not ms or ms <= 0:
        return None
    return nbytes / (ms * 1e-3) / 1e9


def pick_iters(est_ms, target_ms, min_iters=MIN_ITERS, max_iters=MAX_ITERS):
    """Number of timed iterations so that they take about target_ms."""
    est = max(float(est_ms), 1e-4)
    n = int(math.ceil(target_ms / est))
    return max(min_iters, min(max_iters, n))


def elementwise_numel(reads, writes, row=65536,
                      total_bytes=ELEMENTWISE_TRAFFIC_BYTES,
                      elem_bytes=BF16_BYTES):
    """Elements per tensor so that (reads+writes) tensors ~= total_bytes."""
    n = total_bytes // (elem_bytes * (reads + writes))
    n -= n % row
    return max(n, row)


def stats_ms(times):
    times = [float(t) for t in times]
    return {
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
        "mean_ms": sum(times) / len(times),
        "iters": len(times),
    }


def clean_json(obj):
    """Deep copy into JSON-safe types (NaN/inf -> None, unknown -> str)."""
    if isinstance(obj, dict):
        return {str(k): clean_json(v) for k, v in list(obj.items())}
    if isinstance(obj, (list, tuple)):
        return [clean_json(v) for v in list(obj)]
    if isinstance(obj, bool) or obj is None or isinstance(obj, (int, str)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    return str(obj)


class Budget:
    """Global deadline, split over the sections still to run."""

    def __init__(self, total_s):
        self.total_s = float(total_s)
        self.deadline = T0 + self.total_s

    def remaining(self):
        return self.deadline - time.monotonic()

    def section_deadline(self, weight, weights_left):
        rem = max(0.0, self.remaining())
        share = weight / sum(weights_left) if sum(weights_left) > 0 else 1.0
        return time.monotonic() + rem * share


class Recorder:
    """Holds the result dict and writes it atomically."""

    def __init__(self, path):
        self.path = path
        self.data = {}
        self.lock = threading.Lock()

    def write(self, timeout=None):
        got = self.lock.acquire(timeout=timeout if timeout else -1)
        if not got:
            return False
        try:
            for _ in range(5):  # a concurrent mutation may break the copy
                try:
                    snap = clean_json(self.data)
                    break
                except RuntimeError:
                    time.sleep(0.01)
            else:
                return False
            snap["total_elapsed_s"] = round(elapsed(), 3)
            tmp = self.path + ".tmp"
            d = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(d, exist_ok=True)
            with open(tmp, "w") as fh:
                json.dump(snap, fh, indent=2, sort_keys=False)
                fh.write("\n")
            os.replace(tmp, self.path)
            return True
        except Exception as e:
            log("could not write %s: %s" % (self.path, err_str(e)))
            return False
        finally:
            self.lock.release()


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="output JSON path")
    p.add_argument("--quick", action="store_true",
                   help="fewer configs; runs in under ~20 s")
    p.add_argument("--budget", type=float, default=None,
                   help="soft time budget in seconds for the whole run "
                        "(default 80, or 16 with --quick)")
    p.add_argument("--hard-limit", type=float, default=None,
                   help="watchdog: write partial JSON and exit after this many "
                        "seconds (default budget * 1.3 + 10)")
    p.add_argument("--target-ms", type=float, default=30.0,
                   help="GPU time aimed at per measurement (default 30)")
    p.add_argument("--no-profile", action="store_true",
                   help="skip the torch.profiler kernel listings")
    p.add_argument("--layer-backend", default="FLASH_ATTENTION", choices=["FLASH_ATTENTION", "CUDNN_ATTENTION"],
                   help="the SDPA backend the whole layers run their attention with")
    p.add_argument("--sections", default="layer,flash_attention,elementwise,gemm",
                   help="comma-separated sections to run (default: all)")
    p.add_argument("--no-cudnn-attention", action="store_true",
                   help="skip the extra cuDNN-attention timings")
    a = p.parse_args(argv)
    if a.budget is None:
        a.budget = 16.0 if a.quick else 80.0
    if a.hard_limit is None:
        a.hard_limit = a.budget * 1.3 + 10.0
    return a


# --------------------------------------------------------------------------
# Torch helpers
# --------------------------------------------------------------------------

torch = None   # set in main() so the pure helpers work without torch
F = None


def sync():
    torch.cuda.synchronize()


def free_memory():
    gc.collect()
    try:
        torch.cuda.empty_cache()
    except Exception:
        pass


def measure(fn, setup=None, deadline=None, target_ms=30.0):
    """Median per-iteration GPU time of fn() in ms, with CUDA events.

    setup() (CPU-side only, e.g. dropping .grad) runs before every iteration
    outside the event pair.
    """
    def one():
        if setup is not None:
            setup()
        fn()

    sync()
    one()                                   # warm-up 1 (cold caches, handles)
    sync()
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(WARMUP_ITERS - 1):       # warm-ups 2..3 give an estimate
        one()
    e1.record()
    sync()
    est = e0.elapsed_time(e1) / max(1, WARMUP_ITERS - 1)

    n = pick_iters(est, target_ms)
    if deadline is not None and est > 0:
        left_ms = (deadline - time.monotonic()) * 1000.0
        n = max(MIN_ITERS, min(n, int(0.5 * left_ms / est)))

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    spin_ms = 0.0
    sync()
    if est < SPIN_BELOW_MS:
        spin_ms = min(SPIN_MAX_MS, n * SPIN_PER_ITER_MS)
        try:
            torch.cuda._sleep(int(spin_ms * 1e-3 * SPIN_CLOCK_HZ))
        except Exception:
            spin_ms = 0.0
    for i in range(n):
        if setup is not None:
            setup()
        starts[i].record()
        fn()
        ends[i].record()
    sync()
    res = stats_ms([s.elapsed_time(e) for s, e in zip(starts, ends)])
    res["span_ms"] = starts[0].elapsed_time(ends[-1])
    res["estimate_ms"] = est
    res["queue_prefill_ms"] = spin_ms
    return res


def profile_kernels(fn, setup=None, top=60):
    """Run fn() once under torch.profiler; list the GPU kernels it launched."""
    from torch.profiler import ProfilerActivity, profile
    if setup is not None:
        setup()
    sync()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        sync()
    rows = []
    for ev in prof.key_averages():
        us = None
        for attr in ("self_device_time_total", "device_time_total",
                     "self_cuda_time_total", "cuda_time_total"):
            v = getattr(ev, attr, None)
            if v:
                us = float(v)
                break
        if not us:
            continue
        rows.append({"name": ev.key[:200], "count": int(ev.count),
                     "device_us": round(us, 2)})
    rows.sort(key=lambda r: -r["device_us"])
    return {
        "n_launches": sum(r["count"] for r in rows),
        "n_distinct": len(rows),
        "total_device_us": round(sum(r["device_us"] for r in rows), 2),
        "kernels": rows[:top],
        "truncated": len(rows) > top,
    }


def sdpa_context(backend_name):
    """Factory of a context manager that restricts SDPA to one backend
    ("default": no restriction, the dispatcher chooses)."""
    if backend_name == "default":
        return contextlib.nullcontext
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = getattr(SDPBackend, backend_name)
    return lambda: sdpa_kernel(backend)


def flash_impl_info():
    info = {}
    try:
        import torch.nn.attention as tna
        for fn_name in ("list_flash_attention_impls",
                        "current_flash_attention_impl"):
            f = getattr(tna, fn_name, None)
            if f is not None:
                try:
                    info[fn_name] = clean_json(f())
                except Exception as e:
                    info[fn_name] = err_str(e)
    except Exception as e:
        info["error"] = err_str(e)
    for name in ("flash_sdp_enabled", "cudnn_sdp_enabled",
                 "mem_efficient_sdp_enabled", "math_sdp_enabled"):
        f = getattr(torch.backends.cuda, name, None)
        if f is not None:
            try:
                info[name] = bool(f())
            except Exception as e:
                info[name] = err_str(e)
    return info


def run_with_backend(call, preferred="FLASH_ATTENTION"):
    """Run call(ctx_factory) once with the preferred SDPA backend; fall back
    to the default dispatcher on failure.  Returns (ctx_factory, info)."""
    info = {"requested": preferred}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ctx = sdpa_context(preferred)
            call(ctx)
            sync()
            info["backend"] = preferred
            return ctx, info
        except Exception as e:
            info["requested_error"] = err_str(e)
            # SDPA explains why a backend was rejected via UserWarnings.
            info["requested_warnings"] = [
                str(w.message)[:500] for w in caught][:10]
    ctx = sdpa_context("default")
    call(ctx)
    sync()
    info["backend"] = "default (dispatcher choice; %s failed)" % preferred
    return ctx, info


# --------------------------------------------------------------------------
# Section 1: transformer layer
# --------------------------------------------------------------------------

def make_layer_params(h, f):
    dev, dt = "cuda", torch.bfloat16

    def w(*shape):
        return torch.empty(*shape, device=dev, dtype=dt).normal_(0.0, 0.02) \
            .requires_grad_()

    def const(n, val):
        return torch.full((n,), val, device=dev, dtype=dt).requires_grad_()

    return {
        "ln1_w": const(h, 1.0), "ln1_b": const(h, 0.0),
        "w_qkv": w(3 * h, h), "b_qkv": const(3 * h, 0.0),
        "w_o": w(h, h), "b_o": const(h, 0.0),
        "ln2_w": const(h, 1.0), "ln2_b": const(h, 0.0),
        "w_fc1": w(f, h), "b_fc1": const(f, 0.0),
        "w_fc2": w(h, f), "b_fc2": const(h, 0.0),
    }


def layer_forward(x, p, heads, attn_ctx):
    s, b, h = x.shape
    d = h // heads
    ln1 = F.layer_norm(x, (h,), p["ln1_w"], p["ln1_b"])
    qkv = F.linear(ln1, p["w_qkv"], p["b_qkv"])                # [s, b, 3h]
    # Megatron layout [s, b, heads, 3, d]; unbind + permute are views, the
    # flash kernel reads the strided q/k/v directly (last-dim stride 1).
    q, k, v = qkv.view(s, b, heads, 3, d).unbind(3)            # [s,b,heads,d]
    q, k, v = (t.permute(1, 2, 0, 3) for t in (q, k, v))       # [b,heads,s,d]
    with attn_ctx():
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    # a is [b, heads, s, d] with memory layout [b, s, heads, d]: the reshape
    # to [s, b, h] is a free view when b == 1 and one copy kernel otherwise.
    a = a.permute(2, 0, 1, 3).reshape(s, b, h)
    proj = F.linear(a, p["w_o"], p["b_o"])
    y = x + F.dropout(proj, p=DROPOUT_P, training=True)
    ln2 = F.layer_norm(y, (h,), p["ln2_w"], p["ln2_b"])
    fc1 = F.linear(ln2, p["w_fc1"], p["b_fc1"])
    act = F.gelu(fc1, approximate="tanh")
    fc2 = F.linear(act, p["w_fc2"], p["b_fc2"])
    return y + F.dropout(fc2, p=DROPOUT_P, training=True)


LAYER_NOTES = [
    "bf16 parameters and activations, tensor parallel 1, grad mode on.",
    "forward is timed with the autograd graph built (training forward); the "
    "graph is dropped after each iteration.",
    "fwd_bwd = forward + out.backward(grad) with a fixed random grad; "
    "backward_ms_derived = fwd_bwd median - forward median.",
    "p.grad and x.grad are set to None before every iteration, outside the "
    "timed events: each backward allocates fresh bf16 grads (grads would "
    "accumulate in bf16 otherwise; no fp32 main-grad, no accumulate kernel).",
    "qkv split: view [s,b,heads,3,d] + unbind + permute to [b,heads,s,d] are "
    "views (no copy); flash reads the strided q/k/v. In backward the dq/dk/dv "
    "are stacked back into dqkv by one kernel.",
    "attention output [b,heads,s,d] (memory [b,s,heads,d]) -> [s,b,h]: free "
    "view when micro_batch == 1, one copy kernel when micro_batch > 1.",
    "F.linear on a contiguous 3-D input is one addmm (bias either fused in the "
    "cuBLASLt epilogue or one extra kernel; see kernel_profile).",
    "dropout p=0.1 (training=True) writes a bool mask as well.",
    "FLOPs: gemm_fwd = 2*s*b*(3h*h + h*h + 2*h*f); attn_fwd = 2*b*heads*s*s*d "
    "(causal); bwd = 2*gemm_fwd + 2.5*attn_fwd; elementwise ops not counted.",
]


def layer_one(entry, cfg, deadline, args, want_profile):
    """Times one layer config into entry; returns seconds spent (without
    the optional kernel profile)."""
    t0 = time.monotonic()
    h, heads, f, s, b = cfg
    torch.manual_seed(0)
    p = make_layer_params(h, f)
    x = torch.randn(s, b, h, device="cuda", dtype=torch.bfloat16) \
        .requires_grad_()
    grad = torch.randn(s, b, h, device="cuda", dtype=torch.bfloat16)
    params = list(p.values())

    def clear():
        x.grad = None
        for t in params:
            t.grad = None

    def probe(ctx):
        with torch.no_grad():
            layer_forward(x, p, heads, ctx)

    attn_ctx, entry["attention"] = run_with_backend(probe, args.layer_backend)

    def fwd():
        return layer_forward(x, p, heads, attn_ctx)

    def fwd_bwd():
        out = layer_forward(x, p, heads, attn_ctx)
        out.backward(grad)

    torch.cuda.reset_peak_memory_stats()
    fl = layer_flops(h, heads, f, s, b)
    entry["flops"] = fl
    entry["forward"] = measure(fwd, clear, deadline, args.target_ms)
    entry["fwd_bwd"] = measure(fwd_bwd, clear, deadline, args.target_ms)
    fm = entry["forward"]["median_ms"]
    bm = entry["fwd_bwd"]["median_ms"]
    entry["forward_ms"] = fm
    entry["fwd_bwd_ms"] = bm
    entry["backward_ms_derived"] = bm - fm
    entry["tflops"] = {
        "forward": tflops(fl["fwd"], fm),
        "fwd_bwd": tflops(fl["fwd_bwd"], bm),
        "backward_derived": tflops(fl["bwd"], bm - fm),
    }
    entry["peak_memory_gib"] = torch.cuda.max_memory_allocated() / 2**30
    spent = time.monotonic() - t0
    if want_profile:
        try:
            entry["kernel_profile_fwd_bwd"] = profile_kernels(fwd_bwd, clear)
        except Exception as e:
            entry["kernel_profile_fwd_bwd"] = {"error": err_str(e)}
    clear()
    return spent


def section_layer(sec, deadline, args):
    configs = LAYER_CONFIGS_QUICK if args.quick else LAYER_CONFIGS
    sec["notes"] = LAYER_NOTES
    sec["flash_impl"] = flash_impl_info()
    sec["results"] = []
    prev = None  # (seconds, flops) of the previous config
    for i, cfg in enumerate(configs):
        h, heads, f, s, b = cfg
        entry = {"config": {"hidden": h, "heads": heads, "ffn": f, "seq": s,
                            "micro_batch": b, "head_dim": h // heads}}
        sec["results"].append(entry)
        fl = layer_flops(*cfg)["fwd_bwd"]
        left = deadline - time.monotonic()
        need = 1.0 if prev is None else prev[0] * fl / prev[1]
        if left < need:
            entry["skipped"] = "time budget (%.1f s left, ~%.1f s needed)" % (
                left, need)
            log("layer %s: skipped (budget)" % (cfg,))
            continue
        try:
            spent = layer_one(entry, cfg, deadline, args,
                              want_profile=(i == 0 and not args.no_profile))
            prev = (spent, fl)
            log("layer h=%d heads=%d f=%d s=%d b=%d: fwd %.3f ms, fwd+bwd "
                "%.3f ms, %.1f TFLOP/s [%s]" % (
                    h, heads, f, s, b, entry["forward_ms"],
                    entry["fwd_bwd_ms"], entry["tflops"]["fwd_bwd"] or 0.0,
                    entry["attention"]["backend"]))
        except Exception as e:
            entry["error"] = err_str(e)
            log("layer %s: ERROR %s" % (cfg, entry["error"]))
        finally:
            free_memory()


# --------------------------------------------------------------------------
# Section 2: flash attention alone
# --------------------------------------------------------------------------

def attention_one(b, heads, s, d, backend, deadline, args):
    out = {}
    torch.manual_seed(0)
    shape = (b, heads, s, d)
    q, k, v = (torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
               .requires_grad_() for _ in range(3))

    def probe(ctx):
        with ctx():
            F.scaled_dot_product_attention(q, k, v, is_causal=True)

    ctx, out["attention"] = run_with_backend(probe, backend)

    def fwd():
        with ctx():
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    fl = attention_flops(b, heads, s, d)
    out["flops"] = fl
    out["forward"] = measure(fwd, None, deadline, args.target_ms)
    o = fwd()
    g = torch.randn_like(o)

    def bwd():
        torch.autograd.grad(o, (q, k, v), g, retain_graph=True)

    out["backward"] = measure(bwd, None, deadline, args.target_ms)
    out["forward_ms"] = out["forward"]["median_ms"]
    out["backward_ms"] = out["backward"]["median_ms"]
    out["forward_tflops"] = tflops(fl["fwd"], out["forward_ms"])
    out["backward_tflops"] = tflops(fl["bwd"], out["backward_ms"])
    return out, (fwd, bwd)


def section_flash(sec, deadline, args):
    configs = FLASH_CONFIGS_QUICK if args.quick else FLASH_CONFIGS
    sec["notes"] = [
        "F.scaled_dot_product_attention(q, k, v, is_causal=True), bf16, q/k/v "
        "contiguous [b, heads, s, d] with requires_grad (training forward, "
        "saves logsumexp).",
        "forward timed alone; backward timed alone as torch.autograd.grad(out, "
        "(q,k,v), grad, retain_graph=True) on one fixed forward.",
        "FLOPs: fwd = 2*b*heads*s*s*d (causal: half of 4*b*heads*s*s*d); "
        "bwd = 2.5 * fwd.",
        "'cudnn_attention' (if present) is the same measurement with "
        "SDPBackend.CUDNN_ATTENTION, for comparison only.",
    ]
    sec["flash_impl"] = flash_impl_info()
    sec["results"] = []
    for i, (b, heads, s, d) in enumerate(configs):
        entry = {"config": {"batch": b, "heads": heads, "seq": s,
                            "head_dim": d}}
        sec["results"].append(entry)
        if deadline - time.monotonic() < 0.5:
            entry["skipped"] = "time budget"
            log("flash %s: skipped (budget)" % ((b, heads, s, d),))
            continue
        try:
            res, fns = attention_one(b, heads, s, d, "FLASH_ATTENTION",
                                     deadline, args)
            entry.update(res)
            log("flash b=%d heads=%d s=%d d=%d: fwd %.3f ms %.1f TFLOP/s, "
                "bwd %.3f ms %.1f TFLOP/s [%s]" % (
                    b, heads, s, d, res["forward_ms"],
                    res["forward_tflops"] or 0.0, res["backward_ms"],
                    res["backward_tflops"] or 0.0,
                    res["attention"]["backend"]))
            if i == 0 and not args.no_profile:
                try:
                    entry["kernel_profile_fwd"] = profile_kernels(fns[0])
                    entry["kernel_profile_bwd"] = profile_kernels(fns[1])
                except Exception as e:
                    entry["kernel_profile_fwd"] = {"error": err_str(e)}
            del res, fns
        except Exception as e:
            entry["error"] = err_str(e)
            log("flash %s: ERROR %s" % ((b, heads, s, d), entry["error"]))
        free_memory()
    # Optional comparison with the cuDNN attention backend.
    if args.no_cudnn_attention:
        return
    for entry in sec["results"]:
        if "error" in entry or "skipped" in entry:
            continue
        if deadline - time.monotonic() < 0.5:
            entry["cudnn_attention"] = {"skipped": "time budget"}
            continue
        c = entry["config"]
        try:
            res, fns = attention_one(c["batch"], c["heads"], c["seq"],
                                     c["head_dim"], "CUDNN_ATTENTION",
                                     deadline, args)
            del fns
            entry["cudnn_attention"] = {
                key: res[key] for key in (
                    "attention", "forward_ms", "backward_ms",
                    "forward_tflops", "backward_tflops")}
        except Exception as e:
            entry["cudnn_attention"] = {"error": err_str(e)}
        free_memory()


# --------------------------------------------------------------------------
# Section 3: elementwise / reduction bandwidth
# --------------------------------------------------------------------------

def section_elementwise(sec, deadline, args):
    sec["notes"] = [
        "bf16 tensors, torch.no_grad(); bytes = 2 * numel * (reads + writes) "
        "with ~512 MiB of traffic per op; GB/s = bytes / median time / 1e9.",
        "dropout: counted as read 1 + write 1 only; torch's fused dropout may "
        "also write a 1-byte bool mask per element, which is NOT counted.",
        "layer_norm: rows of h=%d with bf16 weight and bias (weight/bias and "
        "the fp32 mean/rstd per row not counted)." % LAYERNORM_HIDDEN,
        "softmax: torch.softmax(x, -1) over rows of %d." % SOFTMAX_WIDTH,
        "share_of_copy = GB/s of the op / GB/s of y.copy_(x).",
    ]
    dt = torch.bfloat16

    def randn(*shape):
        return torch.randn(*shape, device="cuda", dtype=dt)

    # name, reads, writes, builder -> (fn, shape, keepalive)
    def b_copy():
        n = elementwise_numel(1, 1)
        x, y = randn(n), torch.empty(n, device="cuda", dtype=dt)
        return (lambda: y.copy_(x)), [n], "y.copy_(x)"

    def b_add():
        n = elementwise_numel(2, 1)
        x, y = randn(n), randn(n)
        return (lambda: x + y), [n], "x + y"

    def b_gelu():
        n = elementwise_numel(1, 1)
        x = randn(n)
        return (lambda: F.gelu(x, approximate="tanh")), [n], \
            "F.gelu(x, approximate='tanh')"

    def b_dropout():
        n = elementwise_numel(1, 1)
        x = randn(n)
        return (lambda: F.dropout(x, DROPOUT_P, True)), [n], \
            "F.dropout(x, 0.1, True)"

    def b_layernorm():
        hdim = LAYERNORM_HIDDEN
        n = elementwise_numel(1, 1, row=hdim)
        x = randn(n // hdim, hdim)
        w = torch.ones(hdim, device="cuda", dtype=dt)
        bb = torch.zeros(hdim, device="cuda", dtype=dt)
        return (lambda: F.layer_norm(x, (hdim,), w, bb)), \
            [n // hdim, hdim], "F.layer_norm(x, (h,), w, b)"

    def b_softmax():
        wdt = SOFTMAX_WIDTH
        n = elementwise_numel(1, 1, row=wdt)
        x = randn(n // wdt, wdt)
        return (lambda: torch.softmax(x, -1)), [n // wdt, wdt], \
            "torch.softmax(x, -1)"

    ops = [("copy", 1, 1, b_copy), ("add", 2, 1, b_add),
           ("gelu_tanh", 1, 1, b_gelu), ("dropout", 1, 1, b_dropout),
           ("layer_norm", 1, 1, b_layernorm), ("softmax", 1, 1, b_softmax)]
    sec["results"] = {}
    copy_gbps = None
    with torch.no_grad():
        for name, reads, writes, build in ops:
            entry = {"reads": reads, "writes": writes,
                     "bytes_formula": "2 * numel * (%d read + %d write)" % (
                         reads, writes)}
            sec["results"][name] = entry
            if deadline - time.monotonic() < 0.3:
                entry["skipped"] = "time budget"
                continue
            try:
                fn, shape, expr = build()
                numel = 1
                for sz in shape:
                    numel *= sz
                nbytes = BF16_BYTES * numel * (reads + writes)
                entry.update({"expr": expr, "shape": shape, "numel": numel,
                              "bytes": nbytes})
                entry["time"] = measure(fn, None, deadline, args.target_ms)
                ms = entry["time"]["median_ms"]
                entry["ms"] = ms
                entry["gbps"] = gbps(nbytes, ms)
                if name == "copy":
                    copy_gbps = entry["gbps"]
                log("elementwise %s: %.3f ms, %.0f GB/s" % (
                    name, ms, entry["gbps"] or 0.0))
                del fn
            except Exception as e:
                entry["error"] = err_str(e)
                log("elementwise %s: ERROR %s" % (name, entry["error"]))
            free_memory()
    for entry in sec["results"].values():
        if copy_gbps and entry.get("gbps"):
            entry["share_of_copy"] = entry["gbps"] / copy_gbps
    sec["copy_gbps"] = copy_gbps


# --------------------------------------------------------------------------
# Section 4: GEMM
# --------------------------------------------------------------------------

def gemm_one(m, n, k, dtype_name, deadline, args):
    torch.manual_seed(0)
    if dtype_name in ("bf16", "fp16"):
        dt = torch.bfloat16 if dtype_name == "bf16" else torch.float16
        a = torch.randn(m, k, device="cuda", dtype=dt)
        w = torch.randn(n, k, device="cuda", dtype=dt)
        bt = w.t()                                   # [k, n], column-major

        def fn():
            return torch.matmul(a, bt)
    else:
        f8 = torch.float8_e4m3fn
        a = (torch.randn(m, k, device="cuda", dtype=torch.bfloat16) * 0.1) \
            .to(f8)
        w = (torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.1) \
            .to(f8)
        bt = w.t()
        sa = torch.tensor(1.0, device="cuda")
        sb = torch.tensor(1.0, device="cuda")
        kw = {"use_fast_accum": True} if dtype_name.endswith("fast_accum") \
            else {}

        def fn():
            return torch._scaled_mm(a, bt, scale_a=sa, scale_b=sb,
                                    out_dtype=torch.bfloat16, **kw)
    t = measure(fn, None, deadline, args.target_ms)
    return {"time": t, "ms": t["median_ms"],
            "tflops": tflops(gemm_flops(m, n, k), t["median_ms"])}


def section_gemm(sec, deadline, args):
    shapes = GEMM_SHAPES_QUICK if args.quick else GEMM_SHAPES
    sec["notes"] = [
        "C[m,n] = A[m,k] @ B[k,n]; A row-major contiguous; B = W.t() with W "
        "[n,k] contiguous (F.linear weight layout).",
        "bf16/fp16: torch.matmul, random normal data.",
        "fp8_e4m3: torch._scaled_mm(A_fp8, W_fp8.t(), scale_a=1.0, "
        "scale_b=1.0, out_dtype=bf16); data = (randn * 0.1) cast to "
        "float8_e4m3fn.",
        "fp8_e4m3_fast_accum: the same with use_fast_accum=True (extra, for "
        "comparison).",
        "FLOPs = 2*m*n*k; TFLOP/s from the median time.",
    ]
    sec["results"] = {d: [] for d in GEMM_DTYPES}
    for dtype_name in GEMM_DTYPES:
        for (m, n, k) in shapes:
            entry = {"m": m, "n": n, "k": k, "flops": gemm_flops(m, n, k)}
            sec["results"][dtype_name].append(entry)
            if deadline - time.monotonic() < 0.3:
                entry["skipped"] = "time budget"
                continue
            try:
                entry.update(gemm_one(m, n, k, dtype_name, deadline, args))
                log("gemm %s %dx%dx%d: %.4f ms, %.1f TFLOP/s" % (
                    dtype_name, m, n, k, entry["ms"], entry["tflops"] or 0.0))
            except Exception as e:
                entry["error"] = err_str(e)
                log("gemm %s %dx%dx%d: ERROR %s" % (
                    dtype_name, m, n, k, entry["error"]))
            free_memory()


# --------------------------------------------------------------------------
# Environment and driver
# --------------------------------------------------------------------------

def nvidia_smi(query):
    try:
        r = subprocess.run(
            ["nvidia-smi", "--query-gpu=" + query, "--format=csv,noheader"],
            capture_output=True, text=True, timeout=15)
        if r.returncode != 0:
            return None
        line = r.stdout.strip().splitlines()
        return line[0].strip() if line else None
    except Exception:
        return None


def environment(rec):
    d = rec.data
    d["python"] = platform.python_version()
    d["driver"] = nvidia_smi("driver_version")
    extra = ("name", "clocks.sm", "clocks.max.sm", "clocks.mem",
             "clocks.max.mem", "power.limit", "temperature.gpu",
             "persistence_mode")
    line = nvidia_smi(",".join(extra))
    vals = [v.strip() for v in line.split(",")] if line else []
    d["nvidia_smi"] = dict(zip(extra, vals)) if len(vals) == len(extra) \
        else line
    d["torch"] = getattr(torch, "__version__", None)
    d["cuda"] = torch.version.cuda
    try:
        d["cudnn"] = torch.backends.cudnn.version()
    except Exception as e:
        d["cudnn"] = err_str(e)
    d["cuda_available"] = torch.cuda.is_available()
    if not d["cuda_available"]:
        return False
    d["device"] = torch.cuda.get_device_name(0)
    props = torch.cuda.get_device_properties(0)
    d["sm_count"] = props.multi_processor_count
    d["compute_capability"] = "%d.%d" % (props.major, props.minor)
    d["total_memory_gib"] = props.total_memory / 2**30
    for attr in ("L2_cache_size", "clock_rate", "memory_clock_rate"):
        if hasattr(props, attr):
            d[attr] = getattr(props, attr)
    m = torch.backends.cuda.matmul
    d["matmul_flags"] = {
        name: getattr(m, name, None) for name in (
            "allow_bf16_reduced_precision_reduction",
            "allow_fp16_reduced_precision_reduction", "allow_tf32")}
    return True


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def start_watchdog(rec, hard_limit):
    def fire():
        try:
            rec.data["aborted"] = "watchdog: hard limit %.0f s reached" % (
                hard_limit)
            log("WATCHDOG: hard limit reached, writing partial results")
            rec.write(timeout=5)
        finally:
            os._exit(3)

    t = threading.Timer(max(1.0, hard_limit - elapsed()), fire)
    t.daemon = True
    t.start()
    return t


def main(argv=None):
    global torch, F
    args = parse_args(argv)
    rec = Recorder(args.out)
    rec.data.update({
        "script": "torch_compute_bench.py",
        "started_unix": time.time(),
        "args": vars(args),
        "budget_s": args.budget,
        "sections": {},
        "errors": [],
    })
    start_watchdog(rec, args.hard_limit)

    def on_term(signum, frame):
        rec.data["aborted"] = "signal %d" % signum
        rec.write(timeout=5)
        os._exit(128 + signum)

    try:
        signal.signal(signal.SIGTERM, on_term)
    except Exception:
        pass

    log("importing torch")
    try:
        import torch as _torch
        import torch.nn.functional as _F
        torch, F = _torch, _F
        ok = environment(rec)
    except Exception as e:
        rec.data["errors"].append("environment: " + err_str(e))
        rec.data["environment_traceback"] = traceback.format_exc(limit=5)
        ok = False
    if not ok:
        for name, _ in SECTION_WEIGHTS:
            rec.data["sections"][name] = {
                "status": "skipped", "error": "torch or CUDA not available"}
        ok_written = rec.write()
        log("torch or CUDA not available; wrote %s" % args.out)
        return 2 if ok_written else 1
    log("device %s, torch %s, cuda %s, driver %s" % (
        rec.data.get("device"), rec.data.get("torch"),
        rec.data.get("cuda"), rec.data.get("driver")))
    try:  # CUDA context + cuBLAS handle outside the sections
        torch.ones(1, device="cuda").sum().item()
    except Exception as e:
        rec.data["errors"].append("cuda init: " + err_str(e))
    rec.write()

    budget = Budget(args.budget)
    funcs = {"layer": section_layer, "flash_attention": section_flash,
             "elementwise": section_elementwise, "gemm": section_gemm}
    chosen = [(n, w) for n, w in SECTION_WEIGHTS if n in args.sections.split(",")]
    for idx, (name, weight) in enumerate(chosen):
        weights_left = [w for _, w in chosen[idx:]]
        deadline = budget.section_deadline(weight, weights_left)
        sec = {"status": "running"}
        rec.data["sections"][name] = sec
        t = time.monotonic()
        log("section %s: start (%.1f s allotted, %.1f s budget left)" % (
            name, deadline - t, budget.remaining()))
        try:
            funcs[name](sec, deadline, args)
            sec["n_errors"] = count_keys(sec.get("results"), "error")
            sec["n_skipped"] = count_keys(sec.get("results"), "skipped")
            sec["status"] = "ok" if sec["n_errors"] == 0 else "partial"
        except Exception as e:
            sec["status"] = "error"
            sec["error"] = err_str(e)
            sec["traceback"] = traceback.format_exc(limit=6)
            rec.data["errors"].append("%s: %s" % (name, sec["error"]))
        finally:
            try:
                free_memory()
            except Exception:
                pass
            sec["elapsed_s"] = round(time.monotonic() - t, 3)
            rec.write()
            log("section %s: %s in %.1f s" % (name, sec["status"],
                                              sec["elapsed_s"]))
    rec.data["finished"] = True
    if not rec.write():
        return 1
    log("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Times, on the GPU, every GEMM of one transformer layer of Korthikanti et al.'s 22B/175B/530B/1T GPTs at tp 8 and
one 2,048-token micro-batch (bf16, torch.matmul = cuBLASLt), in the measurement format of `ccsim bench-compute`
(compare with `ccsim bench-compute --compare OUT.json --topology T`). Weight gradients are bf16 here (no fp32
accumulation). Usage: python3 scripts/device/korthikanti_gemms.py OUT.json"""
import json, sys, torch
def t_ms(f, n=20):
    for _ in range(3): f()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(True), torch.cuda.Event(True)
    ts = []
    for _ in range(5):
        s.record()
        for _ in range(n): f()
        e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) / n)
    ts.sort(); return ts[2]
rows = []
T = 2048
for name, h in (("22B", 6144), ("175B", 12288), ("530B", 20480), ("1T", 25600)):
    tp = 8
    for op, n_out, k_in in (("qkv", 3 * h // tp, h), ("out_proj", h, h // tp), ("fc1", 4 * h // tp, h), ("fc2", h, 4 * h // tp)):
        x = torch.randn(T, k_in, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n_out, k_in, device="cuda", dtype=torch.bfloat16)
        dy = torch.randn(T, n_out, device="cuda", dtype=torch.bfloat16)
        fwd = t_ms(lambda: torch.nn.functional.linear(x, w))
        dgrad = t_ms(lambda: dy @ w)
        wgrad = t_ms(lambda: dy.t() @ x)
        for suffix, (m, n, k), ms, layout in (("", (T, n_out, k_in), fwd, "TN"), (".dgrad", (T, k_in, n_out), dgrad, "NN"),
                                             (".wgrad", (k_in, n_out, T), wgrad, "NT")):
            rows.append({"layer": f"korthikanti {name} h{h} tp8 tokens2048 bf16", "op": op + suffix, "m": m, "n": n, "k": k,
                         "batch": 1, "layout": layout, "dtype": "bf16", "fp32_accumulate": False, "us": ms * 1e3,
                         "tflops": 2 * m * n * k / (ms * 1e-3) / 1e12})
        del x, w, dy
doc = {"device": {"name": torch.cuda.get_device_name(), "sms": torch.cuda.get_device_properties(0).multi_processor_count},
       "source": f"torch {torch.__version__} matmul (cuBLASLt) on {torch.cuda.get_device_name()}, Korthikanti et al. 2022 GPT layers at tp 8",
       "launch_us": 3.254, "elementwise": [], "gemms": rows}
json.dump(doc, open(sys.argv[1], "w"), indent=1)
for r in rows: print(r["layer"], r["op"], round(r["tflops"]))

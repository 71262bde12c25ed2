#!/usr/bin/env python3
"""Which data identify libmfusim's vLLM engine terms (docs/blis.md, "Inside and outside the step").

Runs `mfusim compare --serving` on the vLLM rows of silicon_h100_agg.csv twice (engine `none`: the kernels alone;
engine `vllm`: with the built-in profile), and prints the TPOT left after the kernels at low concurrency per model
and TP, its regressions on the layer count, the concurrency and 1/(OSL-1) (a per-request post-decode overhead P
adds P/(OSL-1) to vLLM bench's TPOT), and the TTFT left after the kernels at concurrency 1.

Usage: engine_decomposition.py BUILD/mfusim [REFERENCE_DIR]   (default ../shared/reference from the repo root)
"""
import csv, json, os, subprocess, sys, tempfile, collections, statistics as st

mfusim = sys.argv[1]
ref = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("MFUSIM_REFERENCE_DIR", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared", "reference"))
silicon = os.path.join(ref, "measured", "silicon", "silicon_h100_agg.csv")
R = os.path.join(ref, "model_configs_aic")
if not os.path.exists(silicon):
    sys.exit(f"engine_decomposition: {silicon} absent: pass the reference directory")

def compare(engine, out):
    # The closed form at steady state with the runs' lengths: the step and the engine terms alone, no benchmark.
    subprocess.run([mfusim, "compare", "--serving", silicon, "--configs", R, "--engine", engine, "--rows", out,
                    "--closed-form", "--requests-per-client", "0", "--min-length-ratio", "1"],
                   check=True, stdout=subprocess.DEVNULL)
    return {r['line']: r for r in csv.DictReader(open(out))}

def layers(m):
    org, name = m.split('/')
    for cand in (f"{org}--{name}_config.json", f"{org}--Meta-{name}_config.json"):
        for f in os.listdir(R):
            if f.lower() == cand.lower():
                c = json.load(open(os.path.join(R, f))); c = c.get('text_config', c)
                return c['num_hidden_layers']

tmp = tempfile.mkdtemp()
none = compare("none", os.path.join(tmp, "none.csv"))
vl = compare("vllm", os.path.join(tmp, "vllm.csv"))
rows=[]
for k,r in none.items():
    if r['backend']!='vllm' or r['status']!='ok': continue
    L=layers(r['model']); c=int(r['concurrency'])
    rows.append(dict(model=r['model'],tp=int(r['tp']),L=L,c=c,isl=int(r['isl']),osl=int(r['osl']),
        rt=(float(r['measured_tpot_ms'])-float(r['tpot_ms']))*1000, rf=(float(r['measured_ttft_ms'])-float(r['ttft_ms']))*1000,
        mt=float(r['measured_tpot_ms']),kt=float(r['tpot_ms']),vt=float(vl[k]['tpot_ms'])))
def ls(X,y):
    # normal equations, small
    n=len(X[0]); A=[[sum(x[i]*x[j] for x in X) for j in range(n)] for i in range(n)]; b=[sum(x[i]*yy for x,yy in zip(X,y)) for i in range(n)]
    for i in range(n):
        p=A[i][i]
        for j in range(i+1,n):
            f=A[j][i]/p
            for k in range(n): A[j][k]-=f*A[i][k]
            b[j]-=f*b[i]
    sol=[0]*n
    for i in reversed(range(n)):
        sol[i]=(b[i]-sum(A[i][k]*sol[k] for k in range(i+1,n)))/A[i][i]
    return sol
print("vLLM rows, concurrency <= 8: TPOT residual after the kernels (measured - engine none), us")
g=collections.defaultdict(list)
for x in rows:
    if x['c']<=8: g[(x['model'],x['tp'],x['L'])].append(x)
for k,v in sorted(g.items()):
    med=st.median(x['rt'] for x in v)
    print(f"  {k[0]:28s} tp{k[1]} L={k[2]:3d} n={len(v):2d} residual {med:7.0f} us = {med/k[2]:6.1f} us/layer;"
          f" TPOT measured {st.median(x['mt'] for x in v):6.2f} kernels {st.median(x['kt'] for x in v):6.2f} vllm profile {st.median(x['vt'] for x in v):6.2f} ms")
for name,sel in [("all c<=8", [x for x in rows if x['c']<=8]),
                 ("dense bf16/fp8 (Qwen3-32B, Llama-3.1-70B) c<=8", [x for x in rows if x['c']<=8 and ('Qwen3-32B' in x['model'] or 'Llama' in x['model'])])]:
    a,b=ls([(1,x['L']) for x in sel],[x['rt'] for x in sel])
    print(f"  fit residual = a + b*L on {name} (n={len(sel)}): a = {a:.0f} us per step, b = {b:.1f} us per layer")
    a,b,c=ls([(1,x['L'],x['c']) for x in sel],[x['rt'] for x in sel])
    print(f"  fit residual = a + b*L + c*conc on {name}: a = {a:.0f}, b = {b:.1f} us/layer, c = {c:.1f} us/request")
print("TTFT residual after the kernels (measured - engine none) = admission + per prompt token x ISL, concurrency <= 4:")
for name, sel in [("dense (Qwen3-32B, Llama-3.1-70B)", [x for x in rows if x['c'] <= 4 and ('Qwen3-32B' in x['model'] or 'Llama' in x['model'])]),
                  ("all vLLM rows", [x for x in rows if x['c'] <= 4])]:
    a, b = ls([(1, x['isl']) for x in sel], [x['rf'] for x in sel])
    print(f"  {name} (n={len(sel)}): admission {a/1000:.1f} ms + {b:.2f} us per prompt token")
print("Qwen3-32B (OSL 128/512/1024 at ISL 1024 and 4096): TPOT residual = a + c*concurrency + P/(OSL-1)")
for tp in (2,4,8):
    sel=[x for x in rows if 'Qwen3-32B' in x['model'] and x['tp']==tp and x['c']<=128 and x['osl'] in (128,512,1024) and x['isl'] in (1024,4096)]
    a,c,P=ls([(1,x['c'],1/(x['osl']-1)) for x in sel],[x['rt'] for x in sel])
    pred=[a+c*x['c']+P/(x['osl']-1) for x in sel]
    rms=(sum((p-x['rt'])**2 for p,x in zip(pred,sel))/len(sel))**.5
    print(f"  tp{tp} n={len(sel)}: a = {a:.0f} us/step, c = {c:.1f} us per running request, P = {P/1000:.1f} ms per request (rms {rms:.0f} us)")
    for isl in (1024,4096):
        s2=[x for x in sel if x['isl']==isl and x['c']<=8]
        for osl in (128,512,1024):
            v=[x['rt'] for x in s2 if x['osl']==osl]
            if v: print(f"      isl {isl} osl {osl:5d} c<=8: residual {st.median(v):6.0f} us  (n={len(v)})")

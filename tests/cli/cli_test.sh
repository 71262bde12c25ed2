#!/usr/bin/env bash
# End-to-end tests of the mfusim CLI: every command, --help, JSON outputs scripts depend on, and one-line errors.
# Usage: cli_test.sh path/to/mfusim tests/fixtures
set -u
cli=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

check() { # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $name" >&2; fi
}
json_has() { python3 -c "import json,sys; d=json.load(open('$1')); sys.exit(0 if all(k in d for k in sys.argv[1:]) else 1)" "${@:2}"; }

# --help everywhere
for cmd in estimate step replay tables compare models gpus sweep plan; do
  "$cli" "$cmd" --help >"$tmp/help" 2>&1
  check "help $cmd" grep -q "^Usage: mfusim $cmd" "$tmp/help"
done
"$cli" --help >"$tmp/help"; check "top help" grep -q "Commands:" "$tmp/help"
"$cli" --version >"$tmp/v"; check "version" grep -q "^mfusim 1\." "$tmp/v"

# unknown command / option: exit 2, one line
"$cli" frobnicate 2>"$tmp/err"; check "unknown command exit" test $? -eq 2
check "unknown command one line" test "$(wc -l <"$tmp/err")" -eq 1
"$cli" estimate --frob 2>"$tmp/err"; check "unknown option exit" test $? -eq 2
check "unknown option names it" grep -q -- "--frob" "$tmp/err"

# estimate, infersim mode, no tables: InferSim's fallbacks, said in the output
"$cli" estimate --mode infersim --model qwen3-8b --gpu H20 >"$tmp/est" 2>&1
check "estimate runs" test $? -eq 0
check "estimate TTFT" grep -q "TTFT" "$tmp/est"
check "estimate says fallback" grep -q "no --bench-data" "$tmp/est"
"$cli" estimate --mode infersim --model qwen3-8b --gpu H20 --decode-bs 64 --fp8-gemm --json >"$tmp/est.json"
check "estimate json keys" json_has "$tmp/est.json" prefill.ttft_ms decode.tpot_ms prefill.throughput_tgs_tok_gpu_s \
  decode.throughput_tgs_tok_gpu_s decode.attn_core_mfu warnings sim_errors
"$cli" estimate --mode infersim --model qwen3-8b --gpu H20 --prefill-only --json >"$tmp/pre.json"
check "prefill-only has no tpot" python3 -c "import json; d=json.load(open('$tmp/pre.json')); assert 'decode.tpot_ms' not in d and 'prefill.ttft_ms' in d"
"$cli" estimate --model llama-3.1-8b-instruct --gpu H100 --json >"$tmp/roof.json"
check "roofline estimate json" json_has "$tmp/roof.json" prefill.ttft_ms decode.tpot_ms

# nothing hidden: estimate shows its load warnings; warnings are arrays; counts are integers
"$cli" estimate --model llama-3.1-8b-instruct --gpu H100 --world-size 4 >"$tmp/est.txt"
check "estimate load warnings" grep -q "compat-mode options, ignored" "$tmp/est.txt"
check "estimate json arrays and integers" python3 -c "
import json; d=json.load(open('$tmp/roof.json'))
assert isinstance(d['warnings'], list) and isinstance(d['load_warnings'], list) and d['load_warnings']
assert type(d['prefill.steps']) is int and type(d['decode.batch_size']) is int and type(d['decode.tpot_ms']) is float"
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 --json >"$tmp/serve.json"
check "serve json warnings and integers" python3 -c "
import json; d=json.load(open('$tmp/serve.json'))
assert isinstance(d['warnings'], list) and type(d['kv_capacity_tokens']) is int and type(d['tpot_ms']) is float"
"$cli" models --json >"$tmp/models.json"
check "models json" python3 -c "
import json; d=json.load(open('$tmp/models.json')); assert len(d)>5
assert all(isinstance(m['name'], str) and type(m['layers']) is int and type(m['experts']) is int for m in d)"
"$cli" gpus --json >"$tmp/gpus.json"
check "gpus json" python3 -c "
import json; d=json.load(open('$tmp/gpus.json')); assert 'H100' in [g['name'] for g in d]
assert all(type(g['sm_count']) is int and isinstance(g['memory_gb'], float) for g in d)"

# names: HF repo ids resolve to the catalogue; unknown names and flags get the closest matches; inline GPU JSON
"$cli" serve --model meta-llama/Llama-3.1-70B-Instruct --gpu H200 --tp 2 --json >"$tmp/hf.json"
check "hf repo id resolves" json_has "$tmp/hf.json" tpot_ms
"$cli" estimate --model llama-3.1-80b-instruct 2>"$tmp/err"; check "model did you mean" grep -q "did you mean 'llama-3.1-70b-instruct'" "$tmp/err"
"$cli" estimate --gpu H10 2>"$tmp/err"; check "gpu did you mean" grep -q "did you mean 'H20', 'H100' or 'A10'" "$tmp/err"
# simulate: vLLM bench's keys, deterministic for a seed, a trace replayed, the documented commands (docs/simulate.md)
"$cli" simulate --model llama-3.1-8b-instruct --gpu H100 --max-concurrency 16 --num-prompts 64 --isl 512 --osl 32 \
  --metric-percentiles 50,90,99 --goodput ttft:500 --json >"$tmp/sim.json"
check "simulate json keys" json_has "$tmp/sim.json" duration completed request_throughput request_goodput \
  output_throughput mean_ttft_ms median_ttft_ms std_ttft_ms p99_ttft_ms p90_tpot_ms p50_itl_ms mean_e2el_ms
"$cli" simulate --model llama-3.1-8b-instruct --gpu H100 --request-rate 5 --burstiness 0.5 --num-prompts 50 \
  --length-distribution lognormal --isl 800 --isl-stddev 300 --seed 3 --json >"$tmp/sim1.json"
"$cli" simulate --model llama-3.1-8b-instruct --gpu H100 --request-rate 5 --burstiness 0.5 --num-prompts 50 \
  --length-distribution lognormal --isl 800 --isl-stddev 300 --seed 3 --json >"$tmp/sim2.json"
check "simulate deterministic" cmp -s "$tmp/sim1.json" "$tmp/sim2.json"
printf 'arrival_s,input_len,output_len\n0,100,5\n0.5,200,3\n' >"$tmp/trace.csv"
"$cli" simulate --model llama-3.1-8b-instruct --gpu H100 --trace "$tmp/trace.csv" --timeline "$tmp/tl.csv" \
  --result-file "$tmp/res.json" >/dev/null
check "simulate trace" python3 -c "import json; d=json.load(open('$tmp/res.json')); assert d['completed']==2 and d['input_lens']==[100,200]"
check "simulate timeline" grep -q "^start_ms,duration_ms,running" "$tmp/tl.csv"
printf 'arrival_s,input_len,output_lenn\n0,100,5\n' >"$tmp/badtrace.csv"
"$cli" simulate --model llama-3.1-8b-instruct --trace "$tmp/badtrace.csv" 2>"$tmp/err"
check "simulate bad trace names file and column" grep -q "badtrace.csv:1:3: unknown column 'output_lenn'" "$tmp/err"
"$cli" simulate --model llama-3.1-8b-instruct --gpu H100 --max-concurrency 8 --num-prompts 24 --isl 512 --osl 16 \
  --ramp-up 1.5 --json >"$tmp/ramp.json"
check "simulate --ramp-up" json_has "$tmp/ramp.json" mean_ttft_ms
"$cli" simulate --model llama-3.1-8b-instruct --request-rate 5 --max-concurrency 8 --ramp-up 1 2>"$tmp/err"
check "simulate --ramp-up needs closed-loop clients" grep -q "ramp_up_s" "$tmp/err"
"$cli" simulate --model llama-3.1-8b-instruct --request-rate nan 2>"$tmp/err"
check "simulate bad rate" grep -q "request_rate" "$tmp/err"
"$cli" simulate --model llama-3.1-8b-instruct --gpu H100 --max-concurrency 64 --num-prompts 1000 --isl 1024 --osl 1024 >"$tmp/simdoc.txt"
check "simulate documented command" grep -q "Mean TTFT" "$tmp/simdoc.txt"
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 --concurrency 16 --isl 512 --osl 32 --simulate --json >"$tmp/ss.json"
check "serve --simulate" python3 -c "import json; d=json.load(open('$tmp/ss.json')); assert d['method']=='simulated' and d['ttft_ms']>0 and d['tpot_ms']>0"
"$cli" sweep --model llama-3.1-8b-instruct --vary concurrency=1,8 --y ttft_ms --simulate >"$tmp/ssw.csv" 2>/dev/null
check "sweep --simulate rows" test "$(wc -l <"$tmp/ssw.csv")" -eq 3
"$cli" plan --model llama-3.1-8b-instruct --gpus H100 --isl 512 --osl 32 --max-ttft-ms 2000 --max-tpot-ms 50 --simulate --json >"$tmp/sp.json" 2>/dev/null
check "plan --simulate" python3 -c "import json; json.load(open('$tmp/sp.json'))"
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 >"$tmp/serve.txt"
check "serve text ends with a newline and lists its load warnings" sh -c "test \"\$(tail -c 1 '$tmp/serve.txt' | od -An -c | tr -d ' ')\" = '\\n' && grep -q '^  no bench_data directory' '$tmp/serve.txt'"
"$cli" serve --isll 5 2>"$tmp/err"; check "flag did you mean" grep -q "did you mean '--isl'" "$tmp/err"
"$cli" sweeep 2>"$tmp/err"; check "command did you mean" grep -q "did you mean 'sweep'" "$tmp/err"
"$cli" serve --model llama-3.1-8b-instruct --gpu '{"base": "H100", "memory_gb": 94}' --json >"$tmp/gj.json"
check "inline gpu json" json_has "$tmp/gj.json" tpot_ms
"$cli" serve --gpu '{"base": "H100", "memory_gbb": 94}' 2>"$tmp/err"; check "inline gpu json bad key" grep -q "memory_gbb" "$tmp/err"

# errors are one line and name the input
"$cli" estimate --model no-such-model 2>"$tmp/err"; check "bad model exit 1" test $? -eq 1
check "bad model message" grep -q "no-such-model" "$tmp/err"
check "bad model one line" test "$(wc -l <"$tmp/err")" -eq 1
"$cli" estimate --tp abc 2>"$tmp/err"; check "bad number exit 2" test $? -eq 2
"$cli" estimate --mode infersim --gpu H100 2>"$tmp/err"; check "compat on H100 refused" test $? -eq 1

# step from stdin
echo '{"model": "llama-3.1-8b-instruct", "gpu": "H100", "tp": 1, "requests": [{"new_tokens": 512, "context": 0}, {"new_tokens": 1, "context": 3000}]}' \
  | "$cli" step --json >"$tmp/step.json"
check "step json" json_has "$tmp/step.json" total_us breakdown bound
check "step breakdown has attention" python3 -c "import json; d=json.load(open('$tmp/step.json')); b=d['breakdown']; assert 'attn_prefill' in b and 'attn_decode' in b and d['total_us']>0"
echo '{"requests": [{"new_tokens": 1, "context": 100}]}' | "$cli" step --bench-data "$fixtures/bench_data" >"$tmp/step.txt"
check "step table" grep -q "step time" "$tmp/step.txt"
echo '{"requests": [{"new_tokens": -4}]}' | "$cli" step 2>"$tmp/err"; check "step negative tokens" grep -q "negative" "$tmp/err"
echo '{"requests": [' | "$cli" step 2>"$tmp/err"; check "step bad json names stdin" grep -q "stdin:[0-9]*:[0-9]*: invalid JSON" "$tmp/err"

# replay a JSONL stream
printf '{"requests": [{"new_tokens": 256, "context": 0}]}\n[[1, 100], [1, 200]]\n\n{"requests": []}\n' >"$tmp/steps.jsonl"
"$cli" replay "$tmp/steps.jsonl" --quiet >"$tmp/replay.csv"
check "replay csv rows" test "$(wc -l <"$tmp/replay.csv")" -eq 4
check "replay csv header" grep -q "^step,line,requests,total_us" "$tmp/replay.csv"
check "replay keeps line numbers" grep -q "^2,4,0," "$tmp/replay.csv"
"$cli" replay "$tmp/steps.jsonl" --format jsonl --out "$tmp/replay.jsonl" 2>"$tmp/summary"
check "replay jsonl" test "$(wc -l <"$tmp/replay.jsonl")" -eq 3
check "replay summary" grep -q "steps/s" "$tmp/summary"
printf '[[1, 100]]\n{"requests": [{"new_tokens": "x"}]}\n' >"$tmp/bad.jsonl"
"$cli" replay "$tmp/bad.jsonl" --quiet >/dev/null 2>"$tmp/err"; check "replay bad line exit" test $? -eq 1
check "replay error names line and field" grep -q "bad.jsonl:2: field 'requests\[0\].new_tokens'" "$tmp/err"

# tables
"$cli" tables "$fixtures/bench_data" >"$tmp/tables"
check "tables lists gpu" grep -q "GPU h100" "$tmp/tables"
check "tables reports headerless" grep -q "no header line" "$tmp/tables"
check "tables reports ignored" grep -q "dsa" "$tmp/tables"
"$cli" tables "$tmp/nope" 2>"$tmp/err"; check "tables missing dir" test $? -eq 1

# catalogues
"$cli" models >"$tmp/models"; check "models" grep -q "deepseek-v3 " "$tmp/models"
"$cli" gpus >"$tmp/gpus"; check "gpus" grep -q "H100" "$tmp/gpus"

# sweep: CSV header and rows, JSON shape, a well-formed SVG with axes, legend and one line per series
"$cli" sweep --model llama-3.1-8b-instruct --vary decode-batch=1..512 --series gpu=H100,H200 --csv "$tmp/sweep.csv" \
  --json "$tmp/sweep.json" --svg "$tmp/sweep.svg" 2>"$tmp/err"
check "sweep runs" test $? -eq 0
check "sweep csv header" test "$(head -1 "$tmp/sweep.csv")" = "decode_batch,gpu,step_ms,bound,error"
check "sweep csv rows" test "$(wc -l <"$tmp/sweep.csv")" -eq 21
check "sweep json shape" python3 -c "
import json; d=json.load(open('$tmp/sweep.json'))
assert d['vary']=='decode_batch' and d['series']=='gpu' and d['y']=='step_ms' and isinstance(d['warnings'], list)
assert len(d['points'])==20
for p in d['points']:
    assert type(p['decode_batch']) is int and isinstance(p['gpu'], str) and isinstance(p['step_ms'], float)
    assert p['step_ms']>0 and p['error'] is None and isinstance(p['bound'], str)
b=[p['step_ms'] for p in d['points'] if p['gpu']=='H100']; assert b==sorted(b)"
check "sweep svg" python3 -c "
import xml.etree.ElementTree as E; ns='{http://www.w3.org/2000/svg}'
r=E.parse('$tmp/sweep.svg').getroot(); assert r.tag==ns+'svg'
texts=[t.text or '' for t in r.iter(ns+'text')]
assert any('decode batch (requests)' in t for t in texts) and any('step time (ms)' in t for t in texts)
assert any('model llama-3.1-8b-instruct | GPU varied | engine vllm' in t for t in texts)
assert any(t=='gpu H100' for t in texts) and any(t=='gpu H200' for t in texts)
assert len(list(r.iter(ns+'polyline')))==2 and len(list(r.iter(ns+'circle')))>=20"
"$cli" sweep --model llama-3.1-8b-instruct --vary concurrency=1,4,16 --series tp=1,2 --y output_tok_s_gpu >"$tmp/serve.csv" 2>/dev/null
check "serving sweep csv" test "$(head -1 "$tmp/serve.csv")" = \
  "concurrency,tp,ttft_ms,tpot_ms,output_tok_s_gpu,e2e_ms,request_throughput_req_s,limited_by,error"
check "serving sweep rows" test "$(wc -l <"$tmp/serve.csv")" -eq 7
"$cli" sweep --model llama-3.1-70b-instruct --gpu H100 --vary tp=1,2 --json - >"$tmp/fit.json" 2>/dev/null
check "sweep keeps refused points" python3 -c "
import json; d=json.load(open('$tmp/fit.json')); p=d['points']
assert p[0]['error'] and p[0]['tpot_ms'] is None and p[1]['error'] is None and p[1]['tpot_ms']>0"
"$cli" sweep --vary decode-batch=1,2 --y tpot_ms 2>"$tmp/err"; check "sweep mixed kinds exit 2" test $? -eq 2
"$cli" sweep --vary batch=1 2>"$tmp/err"; check "sweep unknown param" grep -q "unknown parameter 'batch'" "$tmp/err"

# plan: the choice meets its limits, JSON shape, skipped deployments counted, SVG Pareto front
"$cli" plan --model llama-3.1-70b-instruct --gpus H100,H200,B200 --isl 1024 --osl 256 --max-ttft-ms 2000 \
  --max-tpot-ms 40 --max-concurrency 128 --json --svg "$tmp/plan.svg" >"$tmp/plan.json"
check "plan runs" test $? -eq 0
check "plan json and SLA" python3 -c "
import json; d=json.load(open('$tmp/plan.json'))
assert [g['gpu'] for g in d['gpus']]==['H100','H200','B200'] and isinstance(d['warnings'], list)
assert type(d['isl']) is int and d['max_tpot_ms']==40
for g in d['gpus']:
    b=g['best']; assert b is not None
    assert b['ttft_ms']<=2000 and b['tpot_ms']<=40 and b['meets_sla'] is True
    assert all(type(b[k]) is int for k in ('tp','ep','gpus','concurrency'))
    assert type(g['skipped_not_fitting']) is int and isinstance(g['pareto'], list) and g['pareto']
    assert all(b['output_tok_s_gpu']>=p['output_tok_s_gpu'] for p in g['pareto'] if p['meets_sla'])
assert d['gpus'][0]['skipped_not_fitting']>=1"
check "plan svg" python3 -c "
import xml.etree.ElementTree as E; ns='{http://www.w3.org/2000/svg}'
r=E.parse('$tmp/plan.svg').getroot(); assert len(list(r.iter(ns+'polyline')))==3"
"$cli" plan --model llama-3.1-70b-instruct --gpus H100 --max-tpot-ms 40 --max-concurrency 64 >"$tmp/plan.txt"
check "plan table" grep -q "do not fit" "$tmp/plan.txt"

# nothing blocks, every input is capped (issue 9, sections 3 and 4): a FIFO or /dev/zero is refused at once, a
# procfs file too; stdin stops at its cap. `timeout` turns a hang into a failure instead of a stuck test.
mkfifo "$tmp/fifo"
timeout 20 "$cli" replay "$tmp/fifo" --quiet >/dev/null 2>"$tmp/err"; check "replay fifo exit 1" test $? -eq 1
check "replay fifo says not a regular file" grep -q "fifo: not a regular file" "$tmp/err"
timeout 20 "$cli" replay /dev/zero --quiet >/dev/null 2>"$tmp/err"; check "replay /dev/zero exit 1" test $? -eq 1
check "replay /dev/zero refused" grep -q "/dev/zero: not a regular file" "$tmp/err"
timeout 20 "$cli" replay /proc/self/status --quiet >/dev/null 2>"$tmp/err"; check "replay procfs exit 1" test $? -eq 1
check "replay procfs refused" grep -q "/proc/self/status: a procfs or sysfs file" "$tmp/err"
timeout 20 "$cli" estimate --gpu "$tmp/fifo" >/dev/null 2>"$tmp/err"; check "gpu fifo does not hang" test $? -eq 1
timeout 60 "$cli" step </dev/zero >/dev/null 2>"$tmp/err"; check "step stdin /dev/zero exit 1" test $? -eq 1
check "step stdin capped" grep -q "stdin: larger than the 256 MiB limit for a step read from stdin (it went on past 268435456 bytes)" "$tmp/err"
truncate -s 3G "$tmp/sparse.jsonl"
timeout 20 "$cli" replay "$tmp/sparse.jsonl" --quiet >/dev/null 2>"$tmp/err"; check "replay huge sparse exit 1" test $? -eq 1
check "replay huge sparse names the limit" grep -q "sparse.jsonl: larger than the 1 GiB limit for a JSONL step stream (3221225472 bytes)" "$tmp/err"
rm -f "$tmp/sparse.jsonl"

# failures to write are failures (issue 9, section 6): a full device is an error with a message, never exit 0
if [ -w /dev/full ]; then
  "$cli" replay "$tmp/steps.jsonl" --quiet --out /dev/full 2>"$tmp/err"; check "replay --out /dev/full exit 1" test $? -eq 1
  check "replay --out /dev/full message" grep -q "/dev/full: writing failed: No space left on device" "$tmp/err"
  "$cli" replay "$tmp/steps.jsonl" --quiet >/dev/full 2>"$tmp/err"; check "replay stdout full exit 1" test $? -eq 1
  check "replay stdout full message" grep -q "stdout: writing failed" "$tmp/err"
  for args in "gpus" "gpus --json" "models" "estimate --model qwen3-8b --gpu H100" "tables $fixtures/bench_data" "--version" "--help"; do
    # shellcheck disable=SC2086
    "$cli" $args >/dev/full 2>"$tmp/err"; check "$args > /dev/full exit 1" test $? -eq 1
    check "$args > /dev/full message" grep -q "stdout: writing failed" "$tmp/err"
  done
  echo '{"requests": [{"new_tokens": 1, "context": 100}]}' | "$cli" step >/dev/full 2>"$tmp/err"
  check "step > /dev/full exit 1" test $? -eq 1
fi

# calibrate --steps: steps measured 30% slower than the model predicts are fitted, the calibration is written, and
# --calibration loads it; a trace the defaults already explain is not written without --force.
python3 - "$cli" "$tmp/trace.jsonl" "$tmp/exact.jsonl" <<'PY'
import json, subprocess, sys
cli, slow, exact = sys.argv[1:4]
header = json.dumps({"model": "qwen3-8b", "gpu": "H100", "tp": 1, "engine": "vllm"})
with open(slow, "w") as a, open(exact, "w") as b:
    a.write(header + "\n"); b.write(header + "\n")
    for i in range(24):
        reqs = [{"new_tokens": 1, "context": 200 + 97 * j} for j in range(1 + 5 * i)]
        if i % 3 == 0:
            reqs.append({"new_tokens": 64 + 40 * i, "context": 0})
        out = subprocess.run([cli, "step", "--model", "qwen3-8b", "--gpu", "H100", "--json"],
                             input=json.dumps({"requests": reqs}), capture_output=True, text=True, check=True)
        t = json.loads(out.stdout)["total_us"]
        group = "w%d" % (i % 4)
        a.write(json.dumps({"requests": reqs, "measured_us": 1.3 * t, "group": group}) + "\n")
        b.write(json.dumps({"requests": reqs, "measured_us": t * (1.01 if i % 2 else 0.99), "group": group}) + "\n")
PY
"$cli" calibrate --steps "$tmp/trace.jsonl" -o "$tmp/cal.json" --svg "$tmp/residuals.svg" >"$tmp/cal.txt" 2>"$tmp/err"
check "calibrate --steps writes" test $? -eq 0
check "calibrate residual plot: every step before and held out, by kind" python3 -c "
import xml.etree.ElementTree as E; ns='{http://www.w3.org/2000/svg}'
r=E.parse('$tmp/residuals.svg').getroot(); texts=[t.text or '' for t in r.iter(ns+'text')]
assert any('new tokens in the step' in t for t in texts) and any('predicted / measured - 1 (%)' in t for t in texts)
for kind in ('decode-only', 'mixed'):
    assert 'defaults, ' + kind in texts and 'calibrated, held out, ' + kind in texts, texts
points=[c for c in r.iter(ns+'circle') if c.find(ns+'title') is not None]
assert len(points)==48 and not list(r.iter(ns+'polyline'))"
check "calibrate --steps reports held-out error" grep -q "test (held out)" "$tmp/cal.txt"
check "calibration file" json_has "$tmp/cal.json" mfusim_calibration base_engine engine efficiency fitted_on cross_validation
"$cli" step --model qwen3-8b --gpu H100 --calibration "$tmp/cal.json" --json \
  <<<'{"requests": [{"new_tokens": 1, "context": 1000}]}' >"$tmp/calstep.json"
"$cli" step --model qwen3-8b --gpu H100 --json <<<'{"requests": [{"new_tokens": 1, "context": 1000}]}' >"$tmp/plainstep.json"
check "--calibration slows the step" python3 -c "
import json; c=json.load(open('$tmp/calstep.json'))['total_us']; p=json.load(open('$tmp/plainstep.json'))['total_us']
assert 1.15 * p < c < 1.45 * p, (c, p)"
"$cli" calibrate --steps "$tmp/exact.jsonl" -o "$tmp/cal2.json" >/dev/null 2>"$tmp/err"
check "calibrate refuses a fit that does not help" test $? -eq 1
check "calibrate says why" grep -q "does not improve the cross-validated error" "$tmp/err"
check "not written" test ! -e "$tmp/cal2.json"
echo '{"requests": [{"new_tokens": 1}], "measured_us": "x"}' >"$tmp/bad.jsonl"
"$cli" calibrate --steps "$tmp/bad.jsonl" 2>"$tmp/err"; check "calibrate bad trace exit" test $? -ne 0
check "calibrate bad trace names line and field" grep -q "bad.jsonl:1: field 'measured_us'" "$tmp/err"

# calibrate --kernels: kernels the model itself timed with other GPU constants are fitted back on the train half of
# the shapes, the test half improves, the file is written and --calibration applies it (compare and step); kernels the
# built-in constants already explain are not written without --force.
python3 - "$cli" "$tmp/kern" "$tmp/kern-exact" <<'PY'
import csv, os, subprocess, sys
cli, slow, exact = sys.argv[1:4]
gemm = [(m, n, k) for n, k in [(4096, 4096), (6144, 4096), (4096, 14336), (28672, 4096), (1024, 4096), (8192, 8192),
                               (2048, 1024), (12288, 5120), (5120, 5120), (256, 7168), (16384, 2048), (1536, 1536)]
        for m in (1, 16, 128, 1024, 8192)]
gen = [(b, h, kv, s) for h, kv in [(32, 8), (64, 8), (32, 32), (16, 2), (28, 4), (40, 8)]
       for b in (1, 16, 128) for s in (64, 1024, 8192)]
def write(d, lat):
    os.makedirs(d, exist_ok=True)
    with open(d + "/gemm_bf16.csv", "w") as f:
        f.write("m,n,k,latency\n" + "".join("%d,%d,%d,%.9g\n" % (*g, lat("gemm", i)) for i, g in enumerate(gemm)))
    with open(d + "/generation_attention_bf16.csv", "w") as f:
        f.write("batch_size,num_heads,num_key_value_heads,head_dim,step,latency\n" + "".join(
            "%d,%d,%d,128,%d,%.9g\n" % (*g, lat("generation_attention", i)) for i, g in enumerate(gen)))
def predicted(d, gpu):
    subprocess.run([cli, "compare", "--aic", d, "--gpu", gpu, "--rows", d + "/rows.csv"], check=True,
                   capture_output=True)
    rows = {}
    for r in csv.DictReader(open(d + "/rows.csv")):
        rows.setdefault(r["family"], []).append(float(r["predicted_us"]) / 1000)
    os.remove(d + "/rows.csv")
    return rows
write(slow, lambda f, i: 1.0)
truth = predicted(slow, '{"base": "A100", "memory_efficiency": 0.85, "gemm_max_efficiency": 0.75}')
write(slow, lambda f, i: truth[f][i])
write(exact, lambda f, i: 1.0)
builtin = predicted(exact, "A100")
write(exact, lambda f, i: builtin[f][i])
PY
"$cli" calibrate --kernels "$tmp/kern" --gpu A100 -o "$tmp/kcal.json" >"$tmp/kcal.txt" 2>"$tmp/err"
check "calibrate --kernels writes" test $? -eq 0
check "calibrate --kernels reports both halves" grep -q "fitted on the train half of the shapes, reported on the test half" "$tmp/kcal.txt"
check "calibrate --kernels says it helps" grep -q "the fit helps on shapes it did not see" "$tmp/kcal.txt"
check "kernel calibration file" json_has "$tmp/kcal.json" mfusim_calibration gpu units fitted_on kernel_fit
check "kernel calibration: version 2, the fitted constants, provenance" python3 -c "
import json; d=json.load(open('$tmp/kcal.json')); g=d['gpu']
assert d['mfusim_calibration'] == 2 and 'base_engine' not in d and g['name'] == 'A100', d
assert abs(g['constants']['memory_efficiency'] - 0.85) < 0.05 and abs(g['constants']['gemm_max_efficiency'] - 0.75) < 0.04, g
k=d['fitted_on']['kernels']; assert len(k['fnv1a64']) == 16 and [f['file'] for f in k['files']] == ['gemm_bf16.csv', 'generation_attention_bf16.csv'], k
assert k['rows']['gemm']['train'] + k['rows']['gemm']['test'] == 60, k"
"$cli" compare --aic "$tmp/kern" --gpu A100 --split test --json >"$tmp/kc-before.json"
"$cli" compare --aic "$tmp/kern" --gpu A100 --calibration "$tmp/kcal.json" --split test --json >"$tmp/kc-after.json"
check "compare --calibration applies the fitted constants" python3 -c "
import json; b, a = (json.load(open(p))['families'] for p in ('$tmp/kc-before.json', '$tmp/kc-after.json'))
assert all(x['all']['median_abs'] < 0.5 * y['all']['median_abs'] for x, y in zip(a, b)), (a, b)"
"$cli" step --model qwen3-8b --gpu A100 --calibration "$tmp/kcal.json" --json \
  <<<'{"requests": [{"new_tokens": 1, "context": 1000}]}' >"$tmp/kstep.json"
"$cli" step --model qwen3-8b --gpu A100 --json <<<'{"requests": [{"new_tokens": 1, "context": 1000}]}' >"$tmp/kplain.json"
check "--calibration speeds up a memory-bound step (0.85 of HBM, not 0.7)" python3 -c "
import json; c=json.load(open('$tmp/kstep.json'))['total_us']; p=json.load(open('$tmp/kplain.json'))['total_us']
assert c < 0.95 * p, (c, p)"
"$cli" step --model qwen3-8b --gpu H100 --calibration "$tmp/kcal.json" <<<'{"requests": [{"new_tokens": 1}]}' \
  >/dev/null 2>"$tmp/err"
check "a kernel calibration refuses another GPU" grep -q "fitted for 'A100', but the estimator's GPU is 'H100'" "$tmp/err"
"$cli" calibrate --kernels "$tmp/kern-exact" --gpu A100 -o "$tmp/kcal2.json" >/dev/null 2>"$tmp/err"
check "calibrate --kernels refuses a fit that does not help" test $? -eq 1
check "calibrate --kernels says why" grep -q "does not improve the test half" "$tmp/err"
check "kernel calibration not written" test ! -e "$tmp/kcal2.json"
"$cli" calibrate --kernels "$tmp/kern-exact" --gpu A100 -o "$tmp/kcal2.json" --force >/dev/null 2>&1
check "calibrate --kernels --force writes" test -e "$tmp/kcal2.json"
"$cli" calibrate --kernels "$tmp/kern" 2>"$tmp/err"; check "calibrate --kernels needs --gpu" test $? -eq 2
check "calibrate --kernels names --gpu" grep -q -- "--kernels needs --gpu" "$tmp/err"
"$cli" calibrate --kernels "$tmp/nowhere" --gpu A100 2>"$tmp/err"; check "calibrate --kernels missing dir" test $? -ne 0
check "calibrate --kernels names the directory" grep -q "nowhere: not a directory" "$tmp/err"
"$cli" calibrate --kernels "$tmp/kern" --gpu Z9000 2>"$tmp/err"; check "calibrate --kernels unknown GPU" test $? -ne 0
check "calibrate --kernels names the GPU" grep -q "Z9000" "$tmp/err"
# issue 23, a hostile bad-input pass: each check below failed before its fix.
H='id,system,backend,model_path,mode,isl,osl,gemm_quant_mode,batch_size,tp_size,attention_dp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms'
mkdir -p "$tmp/noconfigs"
printf '%s\na,h100_sxm,vllm,Qwen/Qwen3-8B,agg,1024,128,,16,1,1,1,100,10\nb,h100_sxm,vllm,Qwen/Qwen3-8B,agg,0,128,,16,1,1,1,100,10\n' "$H" >"$tmp/refused.csv"
"$cli" calibrate --serving "$tmp/refused.csv" --configs "$tmp/noconfigs" >/dev/null 2>"$tmp/err"
check "calibrate --serving, every row refused: exit 1, no crash" test $? -eq 1
check "calibrate --serving, every row refused: says why" grep -q "no row of engine 'vllm' could be answered (2 refused).*line 2: no config for Qwen/Qwen3-8B" "$tmp/err"
printf '%s\na,h100_sxm,vllm,Qwen/Qwen3-8B,agg,1024,128,,16,1,1,1,1e-320,10\n' "$H" >"$tmp/subnormal.csv"
# issue 24: the benchmark's length distribution, and the harness terms fitted through the simulation.
mkdir -p "$tmp/simcfg" && cp "$fixtures/models/tiny_gqa.json" "$tmp/simcfg/Org--Tiny_config.json"
printf '%s\n' "$H" >"$tmp/tiny.csv"
for c in 2 4 8; do printf 'r%s,h100_sxm,vllm,Org/Tiny,agg,1024,64,,%s,1,1,1,%s,%s\n' $c $c $((20 + c)) 2.$c >>"$tmp/tiny.csv"; done
printf 's1,h100_sxm,vllm,Org/Other,agg,512,64,,4,1,1,1,30,2.5\n' >>"$tmp/tiny.csv"
cp "$fixtures/models/tiny_gqa.json" "$tmp/simcfg/Org--Other_config.json"
"$cli" calibrate --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --simulate --min-length-ratio 0.8 \
  --requests-per-client 2 --out "$tmp/simfit.json" >"$tmp/out" 2>"$tmp/err"
check "calibrate --serving --simulate fits the per-request terms only" python3 -c "
import json; d=json.load(open('$tmp/simfit.json'))
assert set(k for k in d if not k.startswith('_')) == {'base', 'admission_us', 'input_token_us'}, d.keys()
assert d['_fit']['method'] == 'simulate' and d['_fit']['min_length_ratio'] == 0.8"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --engine "$tmp/simfit.json" --simulate \
  --min-length-ratio 0.8 >"$tmp/out" 2>"$tmp/err"
check "compare --simulate reads the simulation's fit back" grep -q "(all)" "$tmp/out"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --closed-form --min-length-ratio 0.8 >"$tmp/out" 2>"$tmp/err"
check "compare's closed form takes --min-length-ratio" grep -q "(all)" "$tmp/out"
# compare --serving runs InferenceX's benchmark unless told otherwise: simulated, 10 requests per client, lengths
# drawn from [0.8 x L, L]; --closed-form answers by the closed form instead.
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --rows "$tmp/dflt.csv" >/dev/null 2>"$tmp/err"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --simulate --requests-per-client 10 \
  --min-length-ratio 0.8 --rows "$tmp/explicit.csv" >/dev/null 2>"$tmp/err"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --closed-form --rows "$tmp/closed.csv" >/dev/null 2>"$tmp/err"
check "compare --serving defaults to InferenceX's benchmark, simulated" cmp -s "$tmp/dflt.csv" "$tmp/explicit.csv"
check "compare --serving --closed-form answers otherwise" python3 -c "
import csv; a=list(csv.DictReader(open('$tmp/dflt.csv'))); b=list(csv.DictReader(open('$tmp/closed.csv')))
assert len(a) == len(b) == 4 and any(x['ttft_ms'] != y['ttft_ms'] for x, y in zip(a, b)), (a, b)"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --closed-form --simulate >/dev/null 2>"$tmp/err"
check "compare --serving --closed-form with --simulate is refused" grep -q "give one" "$tmp/err"
# --launches FILE: the engine flags a run was launched with beyond its columns, laid over the rows they match only.
printf '{"launches": [{"source": "a test", "match": {"backend": "vllm", "concurrency_min": 4}, "engine": {"step_us": 5000}}]}' >"$tmp/launches.json"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --launches "$tmp/launches.json" --rows "$tmp/launched.csv" >/dev/null 2>"$tmp/err"
check "compare --launches slows the matched rows' steps and no other row" python3 -c "
import csv; a={r['line']: r for r in csv.DictReader(open('$tmp/dflt.csv'))}; b={r['line']: r for r in csv.DictReader(open('$tmp/launched.csv'))}
assert len(a) == len(b) == 4
for l in a:
    if int(a[l]['concurrency']) >= 4: assert float(b[l]['tpot_ms']) > float(a[l]['tpot_ms']) + 4, (a[l], b[l])
    else: assert a[l] == b[l], (a[l], b[l])"
printf '{"launches": [{"source": "a test", "match": {"backend": "vllm", "clients": 4}, "engine": {"step_us": 5000}}]}' >"$tmp/badlaunch.json"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --launches "$tmp/badlaunch.json" >/dev/null 2>"$tmp/err"
check "compare --launches refuses an unknown key: exit 1" test $? -eq 1
check "compare --launches names the file and the key" grep -q "badlaunch.json: field 'launches\[0\].match.clients': unknown key" "$tmp/err"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --launches "$fixtures/../../examples/launches/inferencex.json" \
  --rows "$tmp/exlaunch.csv" >/dev/null 2>"$tmp/err"
check "the example launch file reads, and covers no row it does not name" cmp -s "$tmp/dflt.csv" "$tmp/exlaunch.csv"
"$cli" compare --aic "$tmp/kern" --launches "$tmp/launches.json" >/dev/null 2>"$tmp/err"
check "compare --launches is --serving's" test $? -eq 2
# A model path of the file's own text, however long, keeps its --rows line whole (it once went through a fixed buffer,
# which cut the row and its line break), and the report's rows stay whole too.
{ cat "$tmp/tiny.csv"; printf 'x1,h100_sxm,vllm,Org/%s,agg,512,64,,4,1,1,1,30,2.5\n' "$(printf 'L%.0s' $(seq 1 2000))"; } >"$tmp/longpath.csv"
"$cli" compare --serving "$tmp/longpath.csv" --configs "$tmp/simcfg" --rows "$tmp/longrows.csv" >"$tmp/longreport" 2>"$tmp/err"
check "compare --rows keeps a 2000-character model path whole on its own line" python3 -c "
lines = open('$tmp/longrows.csv').read().split('\n')
assert lines[-1] == '' and len(lines) == 7, len(lines)
assert all(line.count(',') == 15 for line in lines[:-1])
assert any(('Org/' + 'L' * 2000) + ',' in line for line in lines)"
check "compare's report cuts the long path to its column" grep -q "Org/L*\.\.\. " "$tmp/longreport"
# --num-prompts N: each run sent N requests in all (sglang.bench_serving's and vLLM bench's flag), so a row at
# concurrency c is answered with N / c requests per client: the same as --requests-per-client N/c on that row.
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --simulate --min-length-ratio 0.8 --num-prompts 16 \
  --rows "$tmp/np.csv" >/dev/null 2>"$tmp/err"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --simulate --min-length-ratio 0.8 \
  --requests-per-client 4 --rows "$tmp/rpc4.csv" >/dev/null 2>"$tmp/err"
check "compare --num-prompts 16 answers the c 4 rows as 4 requests per client, the c 8 row otherwise" python3 -c "
import csv; a={r['line']: r for r in csv.DictReader(open('$tmp/np.csv'))}; b={r['line']: r for r in csv.DictReader(open('$tmp/rpc4.csv'))}
c4=[l for l in a if a[l]['concurrency']=='4']; c8=[l for l in a if a[l]['concurrency']=='8']
assert c4 and c8 and all(a[l]['ttft_ms']==b[l]['ttft_ms'] for l in c4), (a, b)
assert all(a[l]['ttft_ms']!=b[l]['ttft_ms'] for l in c8), (a, b)"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --num-prompts 16 --requests-per-client 4 \
  >/dev/null 2>"$tmp/err"
check "compare --num-prompts with --requests-per-client is refused by name" grep -q "num-prompts and --requests-per-client" "$tmp/err"
"$cli" calibrate --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --simulate --min-length-ratio 0.8 \
  --num-prompts 16 --out "$tmp/npfit.json" >"$tmp/out" 2>"$tmp/err"
check "calibrate --serving --num-prompts records the runs' count, not a count per client" python3 -c "
import json; d=json.load(open('$tmp/npfit.json'))['_fit']
assert d['num_prompts'] == 16 and 'requests_per_client' not in d, d"
"$cli" calibrate --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --simulate --num-prompts 16 \
  --requests-per-client 2 >/dev/null 2>"$tmp/err"
check "calibrate --num-prompts with --requests-per-client is refused by name" grep -q "num-prompts and --requests-per-client" "$tmp/err"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --num-prompts 0 >/dev/null 2>"$tmp/err"
check "compare --num-prompts 0 is refused by name" grep -q -- "--num-prompts" "$tmp/err"
# Runs that decoded speculatively: the silicon layout does not say so, the flags do (docs/speculative.md, section 5).
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --speculative ngram --num-speculative-tokens 3 \
  --mean-accepted-length 2 --rows "$tmp/spec.csv" >/dev/null 2>"$tmp/err"
check "compare --serving --speculative answers every row with the drafter: shorter TPOT, same rows" python3 -c "
import csv; a={r['line']: r for r in csv.DictReader(open('$tmp/dflt.csv'))}; b={r['line']: r for r in csv.DictReader(open('$tmp/spec.csv'))}
assert a.keys() == b.keys() and all(b[l]['status'] == 'ok' for l in b), (a, b)
assert all(float(b[l]['tpot_ms']) < 0.8 * float(a[l]['tpot_ms']) for l in a), (a, b)"
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --acceptance-rate 0.5 >/dev/null 2>"$tmp/err"
check "compare --serving --acceptance-rate without --speculative is refused by name" grep -q -- "--acceptance-rate needs --speculative" "$tmp/err"
"$cli" compare --aic "$tmp" --speculative mtp >/dev/null 2>"$tmp/err"
check "compare --aic --speculative is refused: kernels do not decode" grep -q -- "--speculative" "$tmp/err"
# --rows names each row's collection (its silicon_data_source; none here: "other"), for per-collection figures.
"$cli" compare --serving "$tmp/tiny.csv" --configs "$tmp/simcfg" --rows "$tmp/rows.csv" >/dev/null 2>"$tmp/err"
check "compare --serving --rows has a collection column" python3 -c "
import csv; rows=list(csv.DictReader(open('$tmp/rows.csv')))
assert len(rows) == 4 and all(r['collection'] == 'other' for r in rows), rows"
# A file of several systems (AIConfigurator's silicon layout names each run's `system`): every row is answered on its
# own system's GPU, never on a default one; a --gpu that names another GPU refuses the row (compare/row_gpu.hpp).
HF='id,silicon_data_source,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,prefill_batch_size,prefill_num_workers,prefill_tp_size,prefill_pp_size,prefill_attention_dp_size,prefill_moe_tp_size,prefill_moe_ep_size,decode_batch_size,decode_num_workers,decode_tp_size,decode_pp_size,decode_attention_dp_size,decode_moe_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms'
{
  printf '%s\n' "$HF"
  for sys in h200_sxm b200_sxm gb200 mi355x; do
    printf 'a_%s,silicon_concurrency=8,vllm,,Org/Tiny,%s,,agg,1024,64,,,8,1,1,1,1,1,,,,,,,,,,,,,,,30,2.5\n' $sys $sys
  done
  printf 'a_pp2,silicon_concurrency=8,vllm,,Org/Tiny,h200_sxm,,agg,1024,64,,,8,1,2,1,1,1,,,,,,,,,,,,,,,31,2.5\n'
  printf 'd1,silicon_concurrency=4,trtllm,,Org/Tiny,h100_sxm,,disagg,1024,64,,,,,,,,,1,1,1,1,1,1,1,4,1,1,1,1,1,1,30,2.5\n'
  printf 'd_pp2,silicon_concurrency=4,trtllm,,Org/Tiny,h100_sxm,,disagg,1024,64,,,,,,,,,1,1,1,1,1,1,1,4,1,1,2,1,1,1,31,2.5\n'
} >"$tmp/systems.csv"
"$cli" compare --serving "$tmp/systems.csv" --configs "$tmp/simcfg" --mode agg --rows "$tmp/sys_rows.csv" >"$tmp/out" 2>"$tmp/err"
check "compare --serving answers each row on its own system's GPU" python3 -c "
import csv; r={x['line']: x for x in csv.DictReader(open('$tmp/sys_rows.csv'))}
g={x['gpu']: x for x in r.values() if x['line'] != '6'}
assert g['H200']['status'] == g['B200']['status'] == g['GB200']['status'] == 'ok', r
assert float(g['B200']['tpot_ms']) < float(g['H200']['tpot_ms']), r  # a tiny model's TTFT is the API server's
assert g['mi355x']['status'] == 'unknown system', r
assert r['6']['status'] == 'unsupported', r  # pp_size 2: pipeline parallelism is not modelled"
check "compare --serving names each GPU's engine where a file holds several" grep -q "^B200 vllm " "$tmp/out"
"$cli" compare --serving "$tmp/systems.csv" --configs "$tmp/simcfg" --mode agg --gpu H200 >"$tmp/out" 2>"$tmp/err"
check "compare --serving --gpu refuses the rows measured on another GPU" grep -q "1 x system mismatch: the row was measured on b200_sxm (B200) and --gpu is H200" "$tmp/out"
"$cli" compare --serving "$tmp/systems.csv" --configs "$tmp/simcfg" >"$tmp/out" 2>"$tmp/err"
check "compare --serving answers both modes of a file that holds both" python3 -c "
t=open('$tmp/out').read(); assert 'aggregated runs (mode agg):' in t and 'disaggregated runs (mode disagg):' in t, t
assert '\nH100 trtllm' not in t and '\ntrtllm   Org/Tiny' in t, t
assert '1 x unsupported: decode_pp_size 2: pipeline parallelism is not modelled' in t, t"
"$cli" compare --serving "$tmp/systems.csv" --configs "$tmp/simcfg" --rows "$tmp/x.csv" >/dev/null 2>"$tmp/err"
check "compare --serving --rows on a file of both modes asks for --mode" grep -q "give --mode agg or --mode disagg with --rows" "$tmp/err"
printf '%s\n' "$H" | sed 's/id,system,/id,/' >"$tmp/nosys.csv"
printf 'a,vllm,Org/Tiny,agg,1024,64,,8,1,1,1,30,2.5\n' >>"$tmp/nosys.csv"
"$cli" compare --serving "$tmp/nosys.csv" --configs "$tmp/simcfg" >/dev/null 2>"$tmp/err"
check "compare --serving on rows that name no system asks for --gpu" grep -q "name no system (no system column): give --gpu NAME" "$tmp/err"
"$cli" compare --serving "$tmp/nosys.csv" --configs "$tmp/simcfg" --gpu H100 >"$tmp/out" 2>"$tmp/err"
check "compare --serving --gpu answers rows that name no system" grep -q "^vllm     (all) .* 1     0 " "$tmp/out"
# Drawn lengths take an engine without mixed batches (SGLang) out of lockstep waves in the closed form too.
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 --engine sglang --concurrency 64 --isl 2048 --osl 256 \
  --requests-per-client 10 --json >"$tmp/waves.json"
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 --engine sglang --concurrency 64 --isl 2048 --osl 256 \
  --requests-per-client 10 --min-length-ratio 0.8 --json >"$tmp/staggered.json"
check "serve --min-length-ratio: staggered clients wait less than waves" python3 -c "
import json; w=json.load(open('$tmp/waves.json')); s=json.load(open('$tmp/staggered.json'))
assert s['ttft_ms'] < 0.5 * w['ttft_ms'], (s['ttft_ms'], w['ttft_ms'])"
"$cli" serve --model llama-3.1-8b-instruct --simulate --min-length-ratio 0 2>"$tmp/err"
check "serve --min-length-ratio 0 is refused by name" grep -q "serving.min_length_ratio must be above 0" "$tmp/err"
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 --concurrency 8 --isl 1024 --osl 64 --simulate \
  --requests-per-client 5 --min-length-ratio 0.8 --json >"$tmp/ssr.json"
check "serve --simulate --min-length-ratio answers" python3 -c "import json; d=json.load(open('$tmp/ssr.json')); assert d['ttft_ms']>0"
"$cli" compare --serving "$tmp/subnormal.csv" --configs "$tmp/noconfigs" >"$tmp/out" 2>"$tmp/err"
check "compare --serving subnormal TTFT refused" grep -q "subnormal.csv:2: measured TTFT and TPOT must be positive normal numbers" "$tmp/err"
check "compare --serving prints no inf" test "$(grep -c 'inf' "$tmp/out")" -eq 0
printf '{"model": "qwen3-8b", "gpu": "H100"}\n{"requests": [{"new_tokens": 1, "context": 100}], "measured_us": 1e-310}\n' >"$tmp/tiny.jsonl"
"$cli" calibrate --steps "$tmp/tiny.jsonl" -o "$tmp/tiny-cal.json" >/dev/null 2>"$tmp/err"
check "calibrate --steps subnormal measured_us refused" grep -q "tiny.jsonl:2: field 'measured_us': must be a positive time in microseconds (a normal number)" "$tmp/err"
check "calibrate --steps subnormal: nothing written" test ! -e "$tmp/tiny-cal.json"
echo '{"mfusim_calibration": 1, "base_engine": "vllm", "engine": {"step_us": null}}' >"$tmp/nullcal.json"
"$cli" step --calibration "$tmp/nullcal.json" <<<'{"requests": [{"new_tokens": 1}]}' >/dev/null 2>"$tmp/err"
check "calibration null is an error, not absent" grep -q "nullcal.json: field 'engine.step_us': is null" "$tmp/err"

# SVG axes: a non-finite or subnormal limit never hangs (timeout turns a hang into a failure)
timeout 60 "$cli" plan --model qwen3-8b --gpus H100 --tp-list 1 --max-concurrency 2 --max-tpot-ms inf --svg "$tmp/inf.svg" >/dev/null 2>"$tmp/err"
check "plan --max-tpot-ms inf refused" test $? -eq 2
check "plan --max-tpot-ms inf names the flag" grep -q -- "--max-tpot-ms must be a finite number above 0, got 'inf'" "$tmp/err"
for bad in nan -5 0; do
  timeout 60 "$cli" plan --model qwen3-8b --gpus H100 --max-ttft-ms=$bad >/dev/null 2>"$tmp/err"
  check "plan --max-ttft-ms $bad refused" grep -q -- "--max-ttft-ms must be a finite number above 0" "$tmp/err"
done
timeout 60 "$cli" plan --model qwen3-8b --gpus H100 --tp-list 1 --max-concurrency 2 --max-tpot-ms 5e-324 --svg "$tmp/tiny.svg" >/dev/null 2>"$tmp/err"
check "plan --max-tpot-ms 5e-324 ends" test $? -eq 0
check "plan 5e-324 svg well formed" python3 -c "import xml.etree.ElementTree as E; E.parse('$tmp/tiny.svg')"

# answers are finite or an error: an engine with max_seqs 0 is refused where it is read, not printed as -nan
"$cli" serve --engine '{"max_seqs": 0}' >"$tmp/out" 2>"$tmp/err"; check "serve max_seqs 0 exit 1" test $? -eq 1
check "serve max_seqs 0 names the field" grep -q "field 'max_seqs': value 0 is outside \[1, " "$tmp/err"
check "serve prints no nan" test "$(grep -ci 'nan' "$tmp/out")" -eq 0
echo '{"base": "vllm", "step_usx": 3}' >"$tmp/engine.json"
"$cli" serve --engine "$tmp/engine.json" 2>"$tmp/err"; check "engine file error names file and field" grep -q "engine.json: field 'step_usx': not an engine profile field; did you mean 'step_us'?" "$tmp/err"
# the engine's release: named by flag or field, a bad one refused naming it; vLLM 0.18's async scheduling (an arrival
# during a step joins the step after next) lengthens the simulated TTFT over 0.12's, TPOT alike
"$cli" serve --engine-version latest 2>"$tmp/err"; check "a bad --engine-version is refused" grep -q "engine version: 'latest' is not a release number" "$tmp/err"
"$cli" serve --engine '{"base": "vllm", "version": "0.x"}' 2>"$tmp/err"; check "a bad version field names the field" grep -q "field 'version': '0.x' is not a release number" "$tmp/err"
"$cli" serve --engine-version 0.18.0 >"$tmp/out"; check "serve names the engine's release" grep -q "engine vllm 0.18.0" "$tmp/out"
for v in 0.12.0 0.18.0; do
  "$cli" simulate --model llama-3.1-8b-instruct --gpu H100 --max-concurrency 16 --num-prompts 160 --isl 1024 --osl 256 \
    --length-distribution uniform --range-ratio 0.2 --engine-version $v --json >"$tmp/ver$v.json"
done
check "vLLM 0.18 (async scheduling) waits longer for the first token than 0.12" python3 -c "
import json; a = json.load(open('$tmp/ver0.12.0.json')); b = json.load(open('$tmp/ver0.18.0.json'))
assert b['mean_ttft_ms'] > a['mean_ttft_ms'] and abs(b['mean_tpot_ms'] / a['mean_tpot_ms'] - 1) < 0.03, (a, b)"

# outputs are written whole or not at all, and an existing file survives a failed run
echo "precious" >"$tmp/existing.csv"
printf '[[1, 100]]\n{"requests": [{"new_tokens": "x"}]}\n' >"$tmp/bad2.jsonl"
"$cli" replay "$tmp/bad2.jsonl" --quiet --out "$tmp/existing.csv" 2>/dev/null
check "replay failure leaves --out untouched" test "$(cat "$tmp/existing.csv")" = "precious"
"$cli" replay "$tmp/steps.jsonl" --quiet --out "$tmp/existing.csv"
check "replay success replaces --out" grep -q "^step,line" "$tmp/existing.csv"
check "replay leaves no temporary file" test "$(ls -a "$tmp" | grep -c mfusim-)" -eq 0
echo "precious" >"$tmp/a.csv"
"$cli" sweep --vary decode-batch=1,2 --csv "$tmp/a.csv" --json "$tmp/no/such/dir/b.json" 2>"$tmp/err"
check "sweep bad --json path exit 1" test $? -eq 1
check "sweep bad --json path named" grep -q "b.json (--json): cannot write: directory '.*no/such/dir' does not exist" "$tmp/err"
check "sweep bad --json path: --csv untouched" test "$(cat "$tmp/a.csv")" = "precious"
"$cli" calibrate --steps "$tmp/trace.jsonl" -o "$tmp/nowhere/cal.json" >/dev/null 2>"$tmp/err"
check "calibrate checks -o before fitting" grep -q "cal.json (-o): cannot write" "$tmp/err"

# strict inputs: unknown keys, options that do nothing, ambiguous names
echo '{"gpus": "B200", "requests": [{"new_tokens": 1, "context": 100}]}' | "$cli" step >/dev/null 2>"$tmp/err"
check "step unknown key refused with a hint" grep -q "stdin: field 'gpus': unknown field; did you mean 'gpu'?" "$tmp/err"
echo '{"tensor_parallel": 2, "requests": [{"new_tokens": 1}]}' | "$cli" step >/dev/null 2>"$tmp/err"
check "step unknown key lists the known" grep -q "field 'tensor_parallel': unknown field (expected model, gpu, tp, bench_data, requests)" "$tmp/err"
"$cli" estimate --nodes 2 2>"$tmp/err"; check "--nodes in roofline refused" test $? -eq 2
check "--nodes named" grep -q -- "--nodes is an InferSim (--mode infersim) option" "$tmp/err"
"$cli" serve --sm-ratio 0.5 2>"$tmp/err"; check "--sm-ratio in roofline refused" grep -q -- "--sm-ratio is an InferSim" "$tmp/err"
"$cli" calibrate --kernels "$tmp/kern" --gpu '{"base": "A100", "name": ""}' -o "$tmp/emptyname.json" --force >/dev/null 2>"$tmp/err"
check "GPU override with an empty name refused" grep -q "field 'name': must not be empty" "$tmp/err"
check "GPU override with an empty name: nothing written" test ! -e "$tmp/emptyname.json"
mkdir -p "$tmp/cwd/Qwen3-8B"
echo '{"model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 8, "intermediate_size": 2048, "vocab_size": 32000}' >"$tmp/cwd/Qwen3-8B/config.json"
(cd "$tmp/cwd" && "$cli" inspect --model Qwen3-8B --json >"$tmp/local.json")
check "an existing path wins over a catalogue name" python3 -c "import json; d=json.load(open('$tmp/local.json')); assert d['layers']['total'] == 3, d['layers']"

"$cli" compare --aic "$tmp/kern" --gpu A100 --engine sglang 2>"$tmp/err"; check "compare --aic refuses --engine" grep -q -- "--engine does nothing with --aic" "$tmp/err"
mkdir -p "$tmp/badrouters"
echo '{"model_type": "deepseek_v3", "hidden_size": "x"}' >"$tmp/badrouters/bad_config.json"
"$cli" compare --aic "$tmp/kern" --gpu A100 --configs "$tmp/badrouters" 2>"$tmp/err"
check "compare --aic --configs names a malformed config" grep -q "bad_config.json: field 'hidden_size'" "$tmp/err"
"$cli" compare --serving "$tmp/subnormal.csv" --configs "$tmp/noconfigs" --split test 2>"$tmp/err"
check "compare --serving refuses --split" grep -q -- "--split does nothing with --serving" "$tmp/err"
"$cli" calibrate --serving "$tmp/refused.csv" --configs "$tmp/noconfigs" --tp 4 2>"$tmp/err"
check "calibrate --serving refuses --tp (rows carry it)" grep -q -- "--tp does nothing with --serving" "$tmp/err"
"$cli" calibrate --kernels "$tmp/kern" --gpu A100 --folds 3 2>"$tmp/err"; check "calibrate --kernels refuses --folds" grep -q -- "--folds does nothing with --kernels" "$tmp/err"

# counts are bounded and named; ranges do not overflow; non-UTF-8 paths do not break JSON output
"$cli" sweep --vary context=1,2 --decode-batch -5 2>"$tmp/err"; check "sweep --decode-batch -5 exit 2" test $? -eq 2
check "sweep --decode-batch -5 named" grep -q -- "--decode-batch must be between 0 and 1048576, got -5" "$tmp/err"
"$cli" sweep --vary context=1,2 --decode-batch 100000000 2>"$tmp/err"; check "sweep --decode-batch 1e8 capped" grep -q -- "--decode-batch must be between 0 and 1048576" "$tmp/err"
"$cli" sweep --vary decode-batch=1..4611686018427387904 2>"$tmp/err"; check "sweep range to 2^62 capped" grep -q -- "--vary: decode-batch 4611686018427387904 is above its limit of 1048576" "$tmp/err"
"$cli" sweep --vary context=0..1099511627776:9223372036854775807 --csv "$tmp/range.csv" 2>"$tmp/err"
check "sweep huge step: checked, two points" test "$(wc -l <"$tmp/range.csv")" -eq 2
bad_name=$(printf 'model-\xff.json')
cp "$tmp/cwd/Qwen3-8B/config.json" "$tmp/$bad_name"
"$cli" sweep --model "$tmp/$bad_name" --vary decode-batch=1,2 --json - >"$tmp/utf.json" 2>"$tmp/err"
check "non-UTF-8 path: JSON output, no internal error" python3 -c "import json; json.load(open('$tmp/utf.json'))"
echo '{"model": "qwen3-8b", "tp": 1000000}' >"$tmp/tp.jsonl"
echo '{"requests": [{"new_tokens": 1, "context": 100}], "measured_us": 100}' >>"$tmp/tp.jsonl"
"$cli" calibrate --steps "$tmp/tp.jsonl" 2>"$tmp/err"; check "trace header tp names file, line, field" grep -q "tp.jsonl:1: field 'tp': must be between 1 and 65536" "$tmp/err"
printf '%s\na,h100_sxm,vllm,Qwen/Qwen3-8B,agg,1024,128,,16,-2,1,1,100,10\n' "$H" >"$tmp/tp.csv"
"$cli" compare --serving "$tmp/tp.csv" --configs "$tmp/noconfigs" 2>"$tmp/err"
check "serving CSV tp_size names file, line, field" grep -q "tp.csv:2:[0-9]*: column 'tp_size': must be between 0 and 4096, found -2" "$tmp/err"
printf '[[1, 100]]\n\n\n[[1, 100], [2199023255552, 0]]\n' >"$tmp/lines.jsonl"
"$cli" replay "$tmp/lines.jsonl" --quiet >/dev/null 2>"$tmp/err"
check "replay names the failing step's line" grep -q "lines.jsonl:4: " "$tmp/err"

# inspect, heterogeneous blocks (DeciLM block_configs): layers by kind, MLP widths, parameters and KV per token,
# worked by hand: 3 attention layers (4 KV heads) x (1536 x 2560 + 1536 x 1536), MLPs 3 x 1536 x (2 x 2048 + 4096),
# embedding and LM head 2 x 32000 x 1536 = 154927104 parameters; KV at TP 2: 3 layers x 2 heads x 128 x 2 x 2 bytes.
"$cli" inspect --model "$fixtures/models/heterogeneous_blocks.json" --gpu H100 --tp 2 --json >"$tmp/blocks.json"
check "inspect block_configs runs" test $? -eq 0
check "inspect block_configs counts" python3 -c "
import json; d=json.load(open('$tmp/blocks.json'))
assert d['dense_ffn_widths'] == [{'intermediate_size': 2048, 'layers': 2}, {'intermediate_size': 4096, 'layers': 1}], d
assert d['layers']['full_attention'] == 3 and d['layers']['dense_ffn'] == 3 and d['layers']['total'] == 4, d
assert d['params_total'] == 154927104 and d['kv_bytes_per_token'] == 3072, d"
"$cli" inspect --model "$fixtures/models/heterogeneous_blocks.json" --gpu H100 --tp 2 >"$tmp/blocks.txt"
check "inspect block_configs widths in text" grep -q "dense FFN widths  2 x 2048 1 x 4096" "$tmp/blocks.txt"

# docs/architectures.md: the 2026 fixtures answer (layers by kind, KV per token of both kinds at TP 8: 9 full and 39
# windowed layers x one KV head per GPU x (192 + 128) x 2 bytes)
"$cli" inspect --model "$fixtures/arch2026/mimo_v2_flash.json" --tp 8 --json >"$tmp/mimo.json"
check "inspect mimo-v2 runs" test $? -eq 0
check "inspect mimo-v2 layers and KV" python3 -c "
import json; d=json.load(open('$tmp/mimo.json'))
assert d['layers']['full_attention'] == 9 and d['layers']['windowed_attention'] == 39 and d['layers']['moe'] == 47, d
assert d['kv_bytes_per_token'] == 48 * 640, d"
"$cli" inspect --model "$fixtures/arch2026/gemma4_26b_a4b.json" >/dev/null
check "inspect gemma-4 runs" test $? -eq 0
# Compressed attention (DeepSeek-V4): answered; KV per token at TP 8 = 43 layers' window of one 512-wide K=V (bf16),
# plus 20 sparse layers' pooled entries and indexer keys every 4 tokens and 20 dense layers' entries every 128
"$cli" inspect --model "$fixtures/arch2026/deepseek_v4_flash.json" --gpu H200 --tp 8 --json >"$tmp/v4.json"
check "inspect deepseek-v4 runs" test $? -eq 0
check "inspect deepseek-v4 parameters and KV" python3 -c "
import json; d=json.load(open('$tmp/v4.json'))
assert abs(d['params_total'] / 284e9 - 1) < 0.03, d['params_total']
assert d['kv_bytes_per_token'] == 43 * 1024 + 20 * (1024 + 132) / 4 + 20 * 1024 / 128, d['kv_bytes_per_token']"
python3 -c "
import json; d=json.load(open('$fixtures/arch2026/deepseek_v4_flash.json')); d['compress_ratios'][5] = 16
json.dump(d, open('$tmp/v4_ratio16.json', 'w'))"
"$cli" inspect --model "$tmp/v4_ratio16.json" 2>"$tmp/err"
check "inspect compressed attention of an unknown ratio refused" test $? -ne 0
check "inspect unknown ratio names compress_ratios" grep -q "field 'compress_ratios'" "$tmp/err"
# Block-sparse attention (MiniMax-M3): answered; KV per token at TP 8 = 60 layers' one replicated KV head (K and V of
# 128, bf16) plus 57 sparse layers' index key (128 bf16 values); a block score other than "max" refused by name
"$cli" inspect --model "$fixtures/arch2026/minimax_m3.json" --gpu H200 --tp 8 --json >"$tmp/m3.json"
check "inspect minimax-m3 runs" test $? -eq 0
check "inspect minimax-m3 parameters and KV" python3 -c "
import json; d=json.load(open('$tmp/m3.json'))
assert abs(d['params_total'] / 428e9 - 1) < 0.03, d['params_total']
assert d['kv_bytes_per_token'] == 60 * 512 + 57 * 256, d['kv_bytes_per_token']"
python3 -c "
import json; d=json.load(open('$fixtures/arch2026/minimax_m3.json'))
d['text_config']['sparse_attention_config']['sparse_score_type'] = 'mean'
json.dump(d, open('$tmp/m3_mean.json', 'w'))"
"$cli" inspect --model "$tmp/m3_mean.json" 2>"$tmp/err"
check "inspect block-sparse mean score refused" test $? -ne 0
check "inspect mean score names sparse_score_type" grep -q "sparse_attention_config.sparse_score_type'" "$tmp/err"
# Step-3.7-Flash (the Step-3.5 key names: num_attention_groups, attention_other_setting, moe_layers_enum, ...):
# answered; 196B in the language backbone (card), 42 MoE and 3 dense layers, 33 windowed of 512 keys; KV per token at
# TP 8 = 45 layers' one KV head (K and V of 128, bf16); a second geometry for full layers refused by name
"$cli" inspect --model "$fixtures/arch2026/step3p7_flash.json" --gpu H200 --tp 8 --json >"$tmp/s37.json"
check "inspect step-3.7 runs" test $? -eq 0
check "inspect step-3.7 parameters, layers and KV" python3 -c "
import json; d=json.load(open('$tmp/s37.json'))
assert abs(d['params_total'] / 196e9 - 1) < 0.03, d['params_total']
assert d['layers']['moe'] == 42 and d['layers']['windowed_attention'] == 33 and d['layers']['attention_window'] == 512
assert d['kv_bytes_per_token'] == 45 * 512, d['kv_bytes_per_token']"
python3 -c "
import json; d=json.load(open('$fixtures/arch2026/step3p7_flash.json'))
d['text_config']['attention_other_setting']['attention_type'] = 'full_attention'
json.dump(d, open('$tmp/s37_full.json', 'w'))"
"$cli" inspect --model "$tmp/s37_full.json" 2>"$tmp/err"
check "inspect step-3.7 full-layer second geometry refused" test $? -ne 0
check "inspect step-3.7 refusal names attention_type" grep -q "attention_other_setting.attention_type'" "$tmp/err"


# serve --disagg (docs/disagg.md): the aggregated keys, the documented command, pools' flags need --disagg
"$cli" serve --disagg --model llama-3.1-8b-instruct --gpu H100 --prefill-workers 1 --prefill-tp 1 --decode-workers 1 \
  --decode-tp 2 --decode-batch 64 --concurrency 32 --isl 2048 --osl 256 --engine vllm --json >"$tmp/dis.json"
check "serve --disagg json keys" json_has "$tmp/dis.json" ttft_ms tpot_ms output_throughput_tok_s_gpu e2e_ms \
  prefill_queue_ms transfer_ms decode_wait_ms warnings
check "serve --disagg ttft is its parts" python3 -c "
import json; d=json.load(open('$tmp/dis.json'))
parts=d['admission_ms']+d['prefill_queue_ms']+d['prefill_ms']+d['transfer_ms']+d['decode_wait_ms']
assert abs(d['ttft_ms']-parts)<1e-6*d['ttft_ms'] and d['gpus']==3 and d['transfer_over']=='nvlink' and d['method']=='disagg'"
"$cli" serve --disagg --model deepseek-v3 --gpu H200 --prefill-workers 2 --prefill-tp 8 --prefill-ep 8 \
  --decode-workers 3 --decode-attention-dp 8 --decode-ep 8 --decode-batch 16 --concurrency 192 --isl 8192 --osl 1024 \
  --engine trtllm --quant fp8 >"$tmp/dis.txt" 2>&1
check "serve --disagg documented command (text)" grep -q "KV transfer .* over the network" "$tmp/dis.txt"
"$cli" serve --model llama-3.1-8b-instruct --decode-tp 2 2>"$tmp/err"; check "pool flag without --disagg exit" test $? -eq 2
check "pool flag without --disagg says so" grep -q -- "--decode-tp describes a pool .* add --disagg" "$tmp/err"
"$cli" serve --disagg --tp 2 2>"$tmp/err"; check "--tp refused with --disagg" grep -q -- "--tp does nothing with --disagg" "$tmp/err"
# serve --disagg --simulate (docs/disagg.md, section 7): the two-pool simulation under the closed form's keys; one
# client alone takes the closed form's path exactly
for sim in "" "--simulate --requests-per-client 2"; do
  "$cli" serve --disagg --model llama-3.1-8b-instruct --gpu H100 --prefill-workers 1 --decode-workers 1 --decode-tp 2 \
    --concurrency 1 --isl 2048 --osl 64 --engine sglang --json $sim >"$tmp/dis1${sim:+s}.json" 2>/dev/null
done
check "serve --disagg --simulate: one client's TTFT is the closed form's" python3 -c "
import json; c=json.load(open('$tmp/dis1.json')); s=json.load(open('$tmp/dis1s.json'))
assert s['method']=='disagg-simulate' and s['requests']==2, s
assert abs(s['ttft_ms']-c['ttft_ms'])<1e-6*c['ttft_ms'] and abs(s['tpot_ms']/c['tpot_ms']-1)<0.01, (s, c)"
"$cli" serve --disagg --model deepseek-v3 --gpu H200 --prefill-workers 2 --prefill-tp 8 --prefill-ep 8 \
  --decode-workers 3 --decode-attention-dp 8 --decode-ep 8 --decode-batch 16 --concurrency 192 --isl 8192 --osl 1024 \
  --engine trtllm --quant fp8 --simulate --requests-per-client 2 --min-length-ratio 0.8 >"$tmp/diss.txt" 2>&1
check "serve --disagg --simulate documented command (text)" grep -q "TTFT  mean .* p90" "$tmp/diss.txt"
for r in round-robin least-loaded; do
  "$cli" serve --disagg --model llama-3.1-8b-instruct --gpu H100 --prefill-workers 2 --decode-workers 4 --decode-batch 4 \
    --concurrency 16 --isl 2048 --osl 128 --simulate --requests-per-client 6 --min-length-ratio 0.5 --router $r --json \
    >"$tmp/router_$r.json" 2>/dev/null
done
check "serve --disagg --simulate --router: round robin waits for slots a load-aware router finds" python3 -c "
import json; rr=json.load(open('$tmp/router_round-robin.json')); ll=json.load(open('$tmp/router_least-loaded.json'))
assert rr['ttft_ms']>ll['ttft_ms'], (rr['ttft_ms'], ll['ttft_ms'])"
"$cli" serve --disagg --model llama-3.1-8b-instruct --router least-loaded 2>"$tmp/err"
check "--router needs --simulate" grep -q -- "--router .* needs --simulate" "$tmp/err"
"$cli" serve --disagg --model llama-3.1-8b-instruct --simulate --router random 2>"$tmp/err"
check "--router names its modes" grep -q -- "--router expects round-robin or least-loaded, got 'random'" "$tmp/err"
# TTFT's parts (docs/disagg.md, section 16): the simulation prints the decode-slot wait and the transfer, and the closed
# form answers --min-length-ratio at the drawn lengths' mean: shorter decodes, a shorter slot wait
for s in "" "--simulate" "--min-length-ratio 0.8"; do
  "$cli" serve --disagg --model llama-3.1-8b-instruct --gpu H100 --prefill-workers 1 --decode-workers 2 --decode-batch 4 \
    --concurrency 12 --isl 2048 --osl 128 --engine trtllm --requests-per-client 4 --json $s \
    >"$tmp/parts_${s//[ .-]/}.json" 2>/dev/null
done
check "serve --disagg: the simulation's decode-slot wait and transfer, the closed form's at the mean lengths" python3 -c "
import json; c=json.load(open('$tmp/parts_.json')); s=json.load(open('$tmp/parts_simulate.json'))
m=json.load(open('$tmp/parts_minlengthratio08.json'))
assert s['decode_wait_ms']>0 and abs(s['transfer_ms']/c['transfer_ms']-1)<1e-9, (s, c)
assert 0<m['decode_wait_ms']<c['decode_wait_ms'] and m['tpot_ms']<=c['tpot_ms'], (m, c)"
# The closed form's first wave (docs/disagg.md, section 15): 64 clients sending at once queue at one prefill worker
# that, in the steady state, their long decodes keep nearly idle
for k in 0 2; do
  "$cli" serve --disagg --model llama-3.1-8b-instruct --gpu H100 --concurrency 64 --isl 2048 --osl 1024 \
    --requests-per-client $k --json >"$tmp/wave_$k.json" 2>/dev/null
done
check "serve --disagg --requests-per-client: the first wave lengthens the mean TTFT, not the TPOT" python3 -c "
import json; s=json.load(open('$tmp/wave_0.json')); w=json.load(open('$tmp/wave_2.json'))
assert w['ttft_ms']>s['ttft_ms'] and w['tpot_ms']==s['tpot_ms'], (s['ttft_ms'], w['ttft_ms'])"
# plan --disagg (docs/disagg.md, section 6): disaggregated deployments beside the aggregated ones, within the budget
"$cli" plan --model llama-3.1-70b-instruct --gpus H100 --isl 2048 --osl 256 --max-ttft-ms 2000 --max-tpot-ms 40 \
  --disagg --gpu-budget 16 --decode-batch-list 8,32,128 --top 3 --json --svg "$tmp/pd.svg" --html "$tmp/pd.html" \
  >"$tmp/pd.json" 2>/dev/null
check "plan --disagg runs" test $? -eq 0
check "plan --disagg: both modes, budget, clients = decode workers x replicas x batch, best meets the limits" python3 -c "
import json; g=json.load(open('$tmp/pd.json'))['gpus'][0]
top=g['top']; modes={c['mode'] for c in top}|{c['mode'] for c in g['pareto']}
assert 'disaggregated' in modes, modes
b=g['best']; assert b['ttft_ms']<=2000 and b['tpot_ms']<=40
assert all(t['output_tok_s_gpu']<=b['output_tok_s_gpu'] for t in top)
for c in top+g['pareto']:
  if c['mode']!='disaggregated': continue
  p,d=c['prefill'],c['decode']
  assert c['gpus']==p['workers']*p['tp']*p['attention_dp']+d['workers']*d['tp']*d['attention_dp']<=16, c
  assert c['concurrency']==d['workers']*d['attention_dp']*c['decode_batch'], c
  assert c['decode_batch'] in (8,32,128), c"
check "plan --disagg svg: an aggregated and a disaggregated front" python3 -c "
import xml.etree.ElementTree as E; ns='{http://www.w3.org/2000/svg}'
r=E.parse('$tmp/pd.svg').getroot(); assert len(list(r.iter(ns+'polyline')))==2
t=' '.join(x.text or '' for x in r.iter(ns+'text')); assert 'H100 disaggregated' in t and 'H100 aggregated' in t"
check "plan --disagg html lists the layouts" grep -q "disaggregated" "$tmp/pd.html"
"$cli" plan --model llama-3.1-70b-instruct --gpus H100 --isl 2048 --osl 256 --max-tpot-ms 40 --disagg --gpu-budget 16 \
  --top 3 >"$tmp/pd.txt" 2>/dev/null
(cd "$tmp" && "$cli" plan --model llama-3.1-70b-instruct --gpus H100 --isl 2048 --osl 256 --max-ttft-ms 2000 \
  --max-tpot-ms 40 --disagg --gpu-budget 16 --top 5 --html plan.html >/dev/null 2>&1)
check "plan --disagg documented command" test -s "$tmp/plan.html"
check "plan --disagg text names the pools" grep -Eq "^  H100 +[0-9] +[0-9]+xTP[0-9]+ \+ [0-9]+x(TP|DP)[0-9]+.* b[0-9]+" "$tmp/pd.txt"
"$cli" plan --model llama-3.1-70b-instruct --gpus H100 --tp-list 2,4,8 --gpu-budget 4 --json >"$tmp/pb.json" 2>/dev/null
check "plan --gpu-budget bounds aggregated replicas" python3 -c "
import json; g=json.load(open('$tmp/pb.json'))['gpus'][0]; assert g['pareto'] and all(c['gpus']<=4 for c in g['pareto'])"
"$cli" plan --model llama-3.1-70b-instruct --gpus H100 --isl 2048 --osl 256 --max-ttft-ms 2000 --max-tpot-ms 40 \
  --disagg --gpu-budget 16 --decode-batch-list 32,128 --simulate --requests-per-client 2 --router least-loaded --json \
  >"$tmp/pds.json" 2>/dev/null
check "plan --disagg --simulate: simulated disaggregated points, the best meets the limits" python3 -c "
import json; g=json.load(open('$tmp/pds.json'))['gpus'][0]; b=g['best']
assert any(c['mode']=='disaggregated' for c in g['pareto']) and b['ttft_ms']<=2000 and b['tpot_ms']<=40, g"
"$cli" plan --model qwen3-8b --gpus H100 --disagg --router least-loaded 2>"$tmp/err"
check "plan --router needs --simulate" grep -q -- "--router .* needs --simulate" "$tmp/err"
"$cli" plan --model qwen3-8b --gpus H100 --decode-batch-list 8 2>"$tmp/err"; check "--decode-batch-list needs --disagg" test $? -eq 2
"$cli" plan --model qwen3-8b --gpus H100 --disagg --decode-batch-list 0 2>"$tmp/err"
check "--decode-batch-list 0 refused" grep -q -- "--decode-batch-list expects integers" "$tmp/err"
"$cli" serve --disagg --decode-workers 0 2>"$tmp/err"; check "--decode-workers 0 refused" grep -q -- "--decode-workers must be between 1" "$tmp/err"
"$cli" serve --disagg --model deepseek-v3 --gpu H100 --prefill-tp 1 2>"$tmp/err"; check "disagg weights too big exit 1" test $? -eq 1
check "disagg weights too big names the pool" grep -q "prefill workers' weights" "$tmp/err"

ref="$(dirname "$0")/../../../shared/reference"
if [ -f "$ref/measured/silicon/silicon_h200_disagg.csv" ]; then
  "$cli" compare --serving "$ref/measured/silicon/silicon_h200_disagg.csv" --configs "$ref/model_configs_aic" --gpu H200 \
    --rows "$tmp/disagg_rows.csv" >"$tmp/disagg_cmp.txt"
  check "compare --serving on a disaggregated CSV" grep -q "^trtllm   deepseek-ai/DeepSeek-V3 " "$tmp/disagg_cmp.txt"
  check "compare --serving disaggregated rows: one per distinct run" test "$(($(wc -l <"$tmp/disagg_rows.csv") - 1))" -eq 119
  check "compare --serving disaggregated: runs without their pools refused" grep -q "91 x unsupported: .*pool sizes are not given" "$tmp/disagg_cmp.txt"
  # By default the runs' benchmark simulated at Dynamo's default router: issue 28's TTFT target (under 25%) holds for
  # the 25 TensorRT-LLM runs with their pools (docs/disagg.md, section 19), every row on the file's own H200.
  check "compare --serving disaggregated, by default: TensorRT-LLM TTFT median under 25%" python3 -c "
import csv, statistics; rows=list(csv.DictReader(open('$tmp/disagg_rows.csv')))
assert all(r['gpu'] == 'H200' for r in rows), set(r['gpu'] for r in rows)
e=[abs(float(r['ttft_ms'])/float(r['measured_ttft_ms'])-1) for r in rows if r['backend']=='trtllm' and r['status']=='ok']
assert len(e) == 25 and statistics.median(e) < 0.25, (len(e), statistics.median(e))"
  # The three SGLang runs with their pools: one TP 8 prefill worker for 8k prompts, batching srt-slurm's 16,384
  # prompt tokens (compare/launch_recipe.hpp); at SGLang's Hopper default of 8,192 it fell behind (83%).
  check "compare --serving disaggregated, by default: SGLang TTFT median under 25%" python3 -c "
import csv, statistics; rows=list(csv.DictReader(open('$tmp/disagg_rows.csv')))
e=[abs(float(r['ttft_ms'])/float(r['measured_ttft_ms'])-1) for r in rows if r['backend']=='sglang' and r['status']=='ok']
assert len(e) == 3 and statistics.median(e) < 0.25, (len(e), statistics.median(e))"
  # --simulate: the same runs answered through the two-pool simulation (docs/disagg.md, section 7)
  "$cli" compare --serving "$ref/measured/silicon/silicon_h100_disagg.csv" --configs "$ref/model_configs_aic" --gpu H100 \
    --simulate --requests-per-client 2 --rows "$tmp/disagg_sim_rows.csv" >"$tmp/disagg_sim.txt"
  check "compare --serving --simulate on a disaggregated CSV" grep -q "^trtllm   deepseek-ai/DeepSeek-V3 " "$tmp/disagg_sim.txt"
  check "compare --serving --simulate: every run answered or refused, TTFT positive" python3 -c "
import csv; rows=list(csv.DictReader(open('$tmp/disagg_sim_rows.csv')))
assert len(rows)==65 and all(r['status']!='ok' or float(r['ttft_ms'])>0 for r in rows), len(rows)"
  # --clients-per-decode-slot: the harness ran 1.2 clients per decode slot (docs/disagg.md, section 11)
  "$cli" compare --serving "$ref/measured/silicon/silicon_h100_disagg.csv" --configs "$ref/model_configs_aic" --gpu H100 \
    --clients-per-decode-slot 1.2 --rows "$tmp/disagg_slot_rows.csv" >/dev/null
  check "compare --clients-per-decode-slot 1.2: the recipes' max_batch_size 1, 2, 8, 16, 64" python3 -c "
import csv; rows=[r for r in csv.DictReader(open('$tmp/disagg_slot_rows.csv')) if r['backend']=='trtllm' and r['pools_given']=='1']
got={(int(r['concurrency']), int(r['decode_batch'])) for r in rows}
assert {(6, 1), (9, 2), (30, 8), (60, 16), (154, 64)} <= got, got"
  "$cli" compare --serving "$ref/measured/silicon/silicon_h100_disagg.csv" --configs "$ref/model_configs_aic" --gpu H100 \
    --clients-per-decode-slot 0.5 2>"$tmp/err"
  check "--clients-per-decode-slot below 1 refused" grep -q "clients per decode slot must be between 1 and 64" "$tmp/err"
  "$cli" compare --serving "$ref/measured/silicon/silicon_h100_agg.csv" --configs "$ref/model_configs_aic" --gpu H100 \
    --clients-per-decode-slot 1.2 2>"$tmp/err"
  check "--clients-per-decode-slot refused on an aggregated CSV" grep -q -- "--clients-per-decode-slot" "$tmp/err"
  "$cli" compare --serving "$ref/measured/silicon/silicon_h100_agg.csv" --configs "$ref/model_configs_aic" --gpu H100 \
    --prefill-batch-from-file 2>"$tmp/err"
  check "--prefill-batch-from-file refused on an aggregated CSV" grep -q -- "--prefill-batch-from-file" "$tmp/err"
fi

# issue #29: help per command, abbreviated model names, estimate's JSON warnings, serve's step headings, plan's
# closest option, calibrate --kernels progress on a terminal.
"$cli" help serve >"$tmp/help" 2>&1; check "help serve is serve's usage" grep -q "^Usage: mfusim serve" "$tmp/help"
"$cli" help plan >"$tmp/help" 2>&1; check "help plan is plan's usage" grep -q "^Usage: mfusim plan" "$tmp/help"
"$cli" help servee 2>"$tmp/err"; check "help of an unknown command: exit 2" test $? -eq 2
check "help of an unknown command suggests" grep -q "did you mean 'serve'" "$tmp/err"
"$cli" serve --model llama3-8b --gpu H100 2>"$tmp/err"
check "abbreviated model name gets did-you-mean" grep -q "did you mean 'llama-3.1-8b-instruct'" "$tmp/err"
"$cli" estimate --model llama-3.1-8b-instruct --gpu A100 --bench-data "$fixtures/bench_data" --json >"$tmp/est.json" \
    2>/dev/null
"$cli" estimate --model llama-3.1-8b-instruct --gpu A100 --bench-data "$fixtures/bench_data" >"$tmp/est.txt" 2>/dev/null
check "estimate --json: warnings hold every load warning the text shows" python3 -c "
import json; d=json.load(open('$tmp/est.json')); text=open('$tmp/est.txt').read()
shown=[l.strip() for l in text.split('load warnings:')[1].splitlines() if l.strip()]
assert shown and all(w in d['warnings'] for w in shown), (shown, d['warnings'])
assert set(d['load_warnings']) <= set(d['warnings'])"
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 --concurrency 64 >"$tmp/serve.txt"
check "serve: step headings in the breakdown's unit, with the batch they average" python3 -c "
import re; t=open('$tmp/serve.txt').read()
heads=re.findall(r'^(decode|mixed) step ([0-9.]+) us on average', t, re.M)
totals=[float(x) for x in re.findall(r'^step time ([0-9.]+) us', t, re.M)]
assert len(heads)==2 and len(totals)==2, t
# the average (fractional batch) and the whole-batch breakdown may differ, by less than one request's share
for (_, avg), tot in zip(heads, totals): assert abs(float(avg)-tot) < 0.05*tot, (avg, tot)
assert ' ms):' not in t"
"$cli" plan --model llama-3.1-70b-instruct --gpus B200 --isl 1024 --osl 256 --max-ttft-ms 50 --max-tpot-ms 5 \
    >"$tmp/plan.txt" 2>/dev/null
check "plan: nothing feasible names the closest deployment" grep -Eq "closest: tp [0-9]+, ep [0-9]+, concurrency [0-9]+: .*over the limit" "$tmp/plan.txt"
"$cli" plan --model llama-3.1-70b-instruct --gpus B200 --isl 1024 --osl 256 --max-ttft-ms 50 --max-tpot-ms 5 \
    --json >"$tmp/plan.json" 2>/dev/null
check "plan --json: closest with its limit ratio" python3 -c "
import json; g=json.load(open('$tmp/plan.json'))['gpus'][0]
assert g['best'] is None and g['closest']['limit_ratio'] > 1
assert max(g['closest']['ttft_ms']/50, g['closest']['tpot_ms']/5) == g['closest']['limit_ratio']"
# Charts (issue #29): legends inside the picture, end points inside the frame, refused points marked; plan's chart
# draws the TPOT limit, marks the TTFT limit's failures and the chosen deployment, and labels points.
cat >"$tmp/svgcheck.py" <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
width = float(root.get("width"))
frame = root.find("s:g[@class='axes']/s:rect", ns)
x0, x1 = float(frame.get("x")), float(frame.get("x")) + float(frame.get("width"))
y0, y1 = float(frame.get("y")), float(frame.get("y")) + float(frame.get("height"))
for t in root.findall("s:g[@class='legend']//s:text", ns):
    # 7 px per character of 12 px sans-serif is a generous width for DejaVu/Liberation/Helvetica
    assert float(t.get("x")) + 6.5 * len(t.text) <= width, ("legend clipped", t.text, width)
for c in root.findall("s:g[@class='series']/s:circle", ns):
    assert x0 < float(c.get("cx")) < x1 and y0 <= float(c.get("cy")) <= y1, ("point on or off the frame", c.attrib)
    # linear value axes start at 0, the only place a point may touch the frame; x never
print(len(root.findall(".//s:path[@class='refused']", ns)), len(root.findall(".//s:g[@class='highlight']", ns)),
      len(root.findall(".//s:text[@class='point-label']", ns)))
PY
"$cli" sweep --model llama-4-scout-17b-16e-instruct-fp8-dynamic --gpu H100 --vary tp=1,2,4,8 \
    --series model=llama-4-scout-17b-16e-instruct-fp8-dynamic,llama-3.1-70b-instruct --y tpot_ms \
    --svg "$tmp/long.svg" --json "$tmp/long.json" >/dev/null 2>&1
check "sweep chart: legend, points and refused points" python3 -c "
import json, subprocess, sys
failed = sum(1 for p in json.load(open('$tmp/long.json'))['points'] if p['error'])
refused, _, _ = map(int, subprocess.run([sys.executable, '$tmp/svgcheck.py', '$tmp/long.svg'], check=True,
                                        capture_output=True, text=True).stdout.split())
assert failed > 0 and refused == failed, (failed, refused)"
"$cli" plan --model llama-3.1-70b-instruct --gpus H100,B200 --isl 1024 --osl 256 --max-ttft-ms 2000 \
    --max-tpot-ms 40 --svg "$tmp/pareto.svg" --json >"$tmp/pareto.json" 2>/dev/null
check "plan chart: chosen deployments ringed, points labelled" python3 -c "
import json, subprocess, sys
chosen = sum(1 for g in json.load(open('$tmp/pareto.json'))['gpus'] if g['best'])
_, rings, labels = map(int, subprocess.run([sys.executable, '$tmp/svgcheck.py', '$tmp/pareto.svg'], check=True,
                                           capture_output=True, text=True).stdout.split())
assert chosen > 0 and rings == chosen and labels > 0, (chosen, rings, labels)"
check "plan chart: TPOT limit drawn, TTFT limit in the legend" grep -q "TPOT limit 40 ms.*TTFT over the limit of 2000 ms" \
    <(tr -d '\n' <"$tmp/pareto.svg")
"$cli" plan --model llama-3.1-70b-instruct --gpus H100,B200 --isl 1024 --osl 256 --max-ttft-ms 2000 \
    --max-tpot-ms 40 --top 3 --json >"$tmp/top.json" 2>/dev/null
check "plan --top 3: the best first, all meeting the limits, tokens/s per user" python3 -c "
import json
for g in json.load(open('$tmp/top.json'))['gpus']:
    top = g['top']
    same = ('tp', 'ep', 'concurrency', 'output_tok_s_gpu')
    assert 0 < len(top) <= 3 and all(top[0][k] == g['best'][k] for k in same), g
    assert all(a['output_tok_s_gpu'] >= b['output_tok_s_gpu'] for a, b in zip(top, top[1:]))
    assert all(t['meets_sla'] and t['ttft_ms'] <= 2000 and t['tpot_ms'] <= 40 for t in top)
    assert all(abs(t['output_tok_s_user'] * t['tpot_ms'] - 1000) < 1e-6 for t in top)"
"$cli" plan --model llama-3.1-70b-instruct --gpus B200 --isl 1024 --osl 256 --max-tpot-ms 40 --top 2 >"$tmp/top.txt" 2>/dev/null
check "plan --top in the text" grep -Eq "^  B200 +2 TP[0-9]+" "$tmp/top.txt"
check "plan --json: launch commands of the chosen deployment" python3 -c "
import json
for g in json.load(open('$tmp/top.json'))['gpus']:
    b = g['best']; l = b['launch']
    assert l['vllm'].startswith('vllm serve ') and '--tensor-parallel-size %d ' % b['tp'] in l['vllm'], l
    assert '--max-num-seqs %d ' % b['concurrency'] in l['vllm'] and '--max-model-len 1280' in l['vllm'], l
    assert '--tp %d ' % b['tp'] in l['sglang'] and '--max-running-requests %d ' % b['concurrency'] in l['sglang'], l
    assert '--tp_size %d ' % b['tp'] in l['trtllm'] and '--max_batch_size %d ' % b['concurrency'] in l['trtllm'], l
    assert '<hf-id-of-llama-3.1-70b-instruct>' in l['vllm'], l"
"$cli" plan --model Qwen/Qwen3-30B-A3B --gpus H100 --isl 1024 --osl 256 --tp-list 2 --json >"$tmp/moe.json" 2>/dev/null
check "plan: an MoE deployment with EP launches with expert parallelism" python3 -c "
import json
b = json.load(open('$tmp/moe.json'))['gpus'][0]['best']; l = b['launch']
assert l['vllm'].startswith('vllm serve Qwen/Qwen3-30B-A3B ')
assert ('--enable-expert-parallel' in l['vllm']) == (b['ep'] > 1) and ('--ep-size %d' % b['ep'] in l['sglang']) == (b['ep'] > 1)"
# --html: one self-contained file (no network reference), the chart with toggleable series and the data as a table
# and as JSON; run in a headless browser where one is installed (its script marks the body with the row count).
"$cli" plan --model llama-3.1-70b-instruct --gpus H100,B200 --isl 1024 --osl 256 --max-ttft-ms 2000 \
    --max-tpot-ms 40 --html "$tmp/plan.html" --json >"$tmp/plan-html.json" 2>/dev/null
"$cli" sweep --model llama-3.1-8b-instruct --vary decode-batch=1..256 --series gpu=H100,B200 --html "$tmp/sweep.html" \
    --json "$tmp/sweep-html.json" 2>/dev/null
cat >"$tmp/htmlcheck.py" <<'PY'
import json, re, sys
page, rows, series = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = open(page).read()
assert not re.search(r'(?:src|href|url)\s*[=(]\s*["\']?(?:https?:)?//', t), "a network reference"
assert t.count("<tr>") - 1 == rows, (t.count("<tr>") - 1, rows)
data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', t, re.S).group(1))
assert len(data) == rows
assert len(re.findall(r'<g data-legend="\d+">', t)) == series and len(re.findall(r'<g class="series" data-series', t)) == series
PY
check "plan --html: self-contained, every deployment in the table" python3 -c "
import json, subprocess, sys
rows = sum(g['evaluated'] for g in json.load(open('$tmp/plan-html.json'))['gpus'])
subprocess.run([sys.executable, '$tmp/htmlcheck.py', '$tmp/plan.html', str(rows), '2'], check=True)"
check "sweep --html: self-contained, every point in the table" python3 -c "
import json, subprocess, sys
rows = len(json.load(open('$tmp/sweep-html.json'))['points'])
subprocess.run([sys.executable, '$tmp/htmlcheck.py', '$tmp/sweep.html', str(rows), '2'], check=True)"
"$cli" simulate --model llama-3.1-8b-instruct --gpu H100 --max-concurrency 16 --num-prompts 200 --isl 512 --osl 128 \
    --html "$tmp/sim.html" --json >"$tmp/sim-html.json" 2>/dev/null
check "simulate --html: self-contained, every number of the result in the table" python3 -c "
import json, subprocess, sys
rows = len([k for k in json.load(open('$tmp/sim-html.json')) if k != 'warnings'])
subprocess.run([sys.executable, '$tmp/htmlcheck.py', '$tmp/sim.html', str(rows), '3'], check=True)"
# Kimi Delta Attention (docs/architectures.md, "Kimi Delta Attention"): the documented Kimi-Linear fixture at TP 4
# answers with 20 KDA and 7 MLA layers, a state of 20 x (8 x 128 x 128 x 4 + 3 x 1024 x 3 x 2) bytes per request and
# 7 MLA latents of (512 + 64) x 2 bytes per token; the documented table script runs
"$cli" inspect --model "$fixtures/arch2026/kimi_linear_48b_a3b.json" --tp 4 --json >"$tmp/kda.json"
check "inspect kimi-linear runs" test $? -eq 0
check "inspect kimi-linear layers, state and KV" python3 -c "
import json; d=json.load(open('$tmp/kda.json'))
assert d['layers']['linear_attention'] == 20 and d['layers']['full_attention'] == 7 and d['layers']['moe'] == 26, d
assert d['state_bytes_per_request'] == 20 * (8 * 128 * 128 * 4 + 3 * 1024 * 3 * 2), d
assert d['kv_bytes_per_token'] == 7 * 576 * 2, d"
# Kimi-K3 (docs/architectures.md, "Kimi-K3"): the documented fixture (a kimi_k3 wrapper's text_config) at B200 TP 8
# answers with 69 KDA and 24 MLA layers, parameters within 3% of the card's 2.8T total and 104B active, a state of
# 69 x (12 x 128 x 128 x 4 + 3 x 1536 x 3 x 2) bytes per request and 24 MLA latents of (512 + 64) x 2 bytes per token
"$cli" inspect --model "$fixtures/arch2026/kimi_k3.json" --gpu B200 --tp 8 --json >"$tmp/k3.json"
check "inspect kimi-k3 runs" test $? -eq 0
check "inspect kimi-k3 layers, parameters, state and KV" python3 -c "
import json; d=json.load(open('$tmp/k3.json'))
assert d['layers']['linear_attention'] == 69 and d['layers']['full_attention'] == 24 and d['layers']['moe'] == 92, d
assert abs(d['params_total'] / 2.8e12 - 1) < 0.03 and abs(d['params_active'] / 104e9 - 1) < 0.03, d
assert d['state_bytes_per_request'] == 69 * (12 * 128 * 128 * 4 + 3 * 1536 * 3 * 2), d
assert d['kv_bytes_per_token'] == 24 * 576 * 2, d"
python3 "$(dirname "$0")/../../tools/kda_table.py" "$cli" 4 >"$tmp/kda_table.txt"
check "kda_table.py runs" test $? -eq 0
check "kda_table.py prints the decode rows" grep -q "^| decode x32 | 131072 |" "$tmp/kda_table.txt"
python3 "$(dirname "$0")/../../tools/block_sparse_table.py" "$cli" H200 8 >"$tmp/block_sparse_table.txt"
check "block_sparse_table.py runs" test $? -eq 0
check "block_sparse_table.py prints the 128k decode row" grep -q "^| decode x32 | 131072 |" "$tmp/block_sparse_table.txt"

# speculative decoding (docs/speculative.md): MTP drafts from the config's num_nextn_predict_layers, TPOT falls as
# acceptance rises, k = 0 drafts is the plain step, and the flags refuse what cannot be
python3 -c "
import json; d=json.load(open('$fixtures/models/tiny_moe_shared.json')); d['num_nextn_predict_layers']=1
json.dump(d, open('$tmp/mtp.json','w'))"
for a in 0.5 0.9; do
  "$cli" serve --model "$tmp/mtp.json" --gpu H100 --isl 512 --osl 64 --concurrency 8 --speculative mtp \
    --acceptance-rate $a --json >"$tmp/spec-$a.json"
done
"$cli" serve --model "$tmp/mtp.json" --gpu H100 --isl 512 --osl 64 --concurrency 8 --json >"$tmp/spec-off.json"
check "speculative: TPOT falls as acceptance rises, below plain decoding" python3 -c "
import json; l=[json.load(open('$tmp/spec-%s.json' % x))['tpot_ms'] for x in ('off', '0.5', '0.9')]
assert l[2] < l[1] and l[2] < l[0], l"
"$cli" serve --model "$tmp/mtp.json" --gpu H100 --isl 512 --osl 64 --concurrency 8 --speculative mtp \
  --num-speculative-tokens 2 --mean-accepted-length 2.6 --simulate --json >"$tmp/spec-sim.json"
check "speculative: simulated with a mean accepted length" json_has "$tmp/spec-sim.json" tpot_ms
python3 -c "import json; print(json.dumps({'requests': [{'new_tokens': 1, 'context': 2048}] * 32}))" >"$tmp/decodes.json"
"$cli" step --model llama-3.1-8b-instruct --gpu H100 --speculative eagle --num-speculative-tokens 3 \
  --acceptance-rate 0.7 --json <"$tmp/decodes.json" >"$tmp/spec-step.json"
"$cli" step --model llama-3.1-8b-instruct --gpu H100 --json <"$tmp/decodes.json" >"$tmp/plain-step.json"
check "speculative: an EAGLE verify step costs more than the plain decode" python3 -c "
import json; a=json.load(open('$tmp/spec-step.json'))['total_us']; b=json.load(open('$tmp/plain-step.json'))['total_us']
assert a > b, (a, b)"
# a draft model drafts (docs/speculative.md, "Draft models"): its passes on top of the verify step cost more than an
# EAGLE head's; plan's launch lines name it; the drafter without its model, or the model without the drafter, refused
for d in "eagle" "draft_model --draft-model llama-3.1-8b-instruct"; do
  "$cli" step --model qwen3-14b --gpu H100 --speculative $d --num-speculative-tokens 3 --acceptance-rate 0.7 --json \
    <"$tmp/decodes.json" >"$tmp/spec-${d%% *}.json"
done
check "speculative: a draft model's passes cost more than an EAGLE head's" python3 -c "
import json; a=json.load(open('$tmp/spec-draft_model.json'))['total_us']; b=json.load(open('$tmp/spec-eagle.json'))['total_us']
assert a > b, (a, b)"
"$cli" plan --model qwen3-14b --gpus H100 --isl 512 --osl 64 --tp-list 1 --max-concurrency 8 \
  --speculative draft_model --draft-model qwen3-8b --num-speculative-tokens 2 --acceptance-rate 0.8 \
  --json >"$tmp/spec-plan-draft.json"
check "speculative: plan's launch lines carry the draft model" python3 -c "
import json; b=json.load(open('$tmp/spec-plan-draft.json'))['gpus'][0]['best']['launch']
assert '\"method\": \"draft_model\"' in b['vllm'] and 'qwen3-8b' in b['vllm'] and 'STANDALONE' in b['sglang'], b"
"$cli" serve --model qwen3-14b --gpu H100 --speculative draft_model --num-speculative-tokens 2 \
  --acceptance-rate 0.7 2>"$tmp/err"
check "speculative: draft_model needs its model" grep -q "draft_model" "$tmp/err"
"$cli" serve --model qwen3-14b --gpu H100 --draft-model qwen3-8b 2>"$tmp/err"
check "speculative: --draft-model needs --speculative" grep -q -- "needs --speculative" "$tmp/err"
# MoE routing imbalance (docs/kernel-families.md): a power law loads the most loaded EP rank more than routing
# at random, so the step's routed experts take longer; a malformed value is a usage error naming the flag
python3 -c "import json; print(json.dumps({'requests': [{'new_tokens': 512, 'context': 0}]}))" >"$tmp/moe-chunk.json"
for r in random power-law:1.2; do
  "$cli" step --model "$fixtures/models/tiny_moe_shared.json" --gpu H100 --ep 2 --attention-dp 2 --moe-routing $r \
    --json <"$tmp/moe-chunk.json" >"$tmp/routing-$r.json"
done
check "moe routing: power law slower than random" python3 -c "
import json; a=json.load(open('$tmp/routing-power-law:1.2.json'))['total_us']; b=json.load(open('$tmp/routing-random.json'))['total_us']
assert a > b, (a, b)"
"$cli" step --model "$fixtures/models/tiny_moe_shared.json" --gpu H100 --moe-routing power-law:-1 \
  <"$tmp/moe-chunk.json" >/dev/null 2>"$tmp/err"
check "moe routing: bad exponent exit 2" test $? -eq 2
check "moe routing: bad exponent names the flag" grep -q -- "--moe-routing" "$tmp/err"
"$cli" estimate --model llama-3.1-8b-instruct --gpu H100 --speculative ngram --num-speculative-tokens 4 \
  --acceptance-rate 0.6 --json >"$tmp/spec-est.json"
check "speculative: estimate runs with n-gram drafting" json_has "$tmp/spec-est.json" decode.tpot_ms
"$cli" plan --model "$tmp/mtp.json" --gpus H100 --isl 512 --osl 64 --tp-list 1 --max-concurrency 8 --speculative mtp \
  --num-speculative-tokens 2 --acceptance-rate 0.8 --json >"$tmp/spec-plan.json"
check "speculative: plan's launch lines carry the drafter" python3 -c "
import json; b=json.load(open('$tmp/spec-plan.json'))['gpus'][0]['best']['launch']
assert '\"method\": \"mtp\", \"num_speculative_tokens\": 2' in b['vllm'] and '--speculative-num-steps 2' in b['sglang'], b"
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 --speculative mtp --acceptance-rate 0.7 2>"$tmp/err"
check "speculative: mtp needs MTP layers" grep -q "num_nextn_predict_layers" "$tmp/err"
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 --acceptance-rate 0.7 2>"$tmp/err"
check "speculative: --acceptance-rate needs --speculative" grep -q -- "needs --speculative" "$tmp/err"
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 --speculative medusa 2>"$tmp/err"
check "speculative: unknown drafter named" grep -q "mtp, eagle, ngram" "$tmp/err"
"$cli" serve --model llama-3.1-8b-instruct --gpu H100 --speculative eagle --num-speculative-tokens 2 \
  --acceptance-rate 0.7 --mean-accepted-length 2 2>"$tmp/err"
check "speculative: rate or length, not both" grep -q "not both" "$tmp/err"
# vision encoders (docs/architectures.md, "Vision encoders"): a Qwen3-VL tower (transformers' Qwen3VLVisionConfig
# defaults) on a small MoE; images per request add the encoder to the first chunk's step and to TTFT, and the flags
# refuse what cannot be
python3 -c "
import json; d=json.load(open('$fixtures/models/tiny_moe_shared.json'))
d['vision_config']={'depth':27,'hidden_size':1152,'intermediate_size':4304,'num_heads':16,'hidden_act':'gelu_pytorch_tanh',
  'patch_size':16,'spatial_merge_size':2,'temporal_patch_size':2,'in_channels':3,'num_position_embeddings':2304,
  'deepstack_visual_indexes':[8,16,24],'out_hidden_size':d['hidden_size']}
json.dump(d, open('$tmp/vl.json','w'))"
"$cli" inspect --model "$tmp/vl.json" --gpu H100 --images-per-request 2 --image-size 1024x512 --json >"$tmp/vl-inspect.json"
check "vision: inspect counts the tower and the image tokens" python3 -c "
import json; d=json.load(open('$tmp/vl-inspect.json')); i=d['images']
assert d['params_vision'] > 4e8 and i['patches_per_image'] == 64 * 32 and i['tokens_per_image'] == 512, d
assert i['encoder_ms_per_image'] > 0, i"
for img in 0 1; do
  "$cli" serve --model "$tmp/vl.json" --gpu H100 --isl 2048 --osl 64 --concurrency 4 --images-per-request $img \
    --image-size 1024 --json >"$tmp/vl-serve-$img.json"
done
check "vision: TTFT grows with an image per request" python3 -c "
import json; a, b = (json.load(open('$tmp/vl-serve-%d.json' % i))['ttft_ms'] for i in (0, 1))
assert b > a, (a, b)"
"$cli" step --model llama-3.1-8b-instruct --gpu H100 --images-per-request 1 <"$tmp/decodes.json" 2>"$tmp/err"
check "vision: a text-only model refuses images" grep -q "no vision_config" "$tmp/err"
"$cli" serve --model "$tmp/vl.json" --gpu H100 --image-size 512 2>"$tmp/err"
check "vision: --image-size needs --images-per-request" grep -q -- "needs --images-per-request" "$tmp/err"
"$cli" serve --model "$tmp/vl.json" --gpu H100 --images-per-request 1 --image-size 10x 2>"$tmp/err"
check "vision: a malformed --image-size is named" grep -q -- "--image-size must be" "$tmp/err"
# the 2026 towers: Kimi-K3's MoonViT3d (attention 1536 wide over a 1024-wide tower) and Step-3.7's
# PerceptionEncoder (a 728-pixel view plus 504-pixel crops, two stride-2 downsamplers): an image per request is
# answered and adds the encoder to the step of a first prefill chunk (B200 TP 8, where Kimi-K3's 2.8T fits)
python3 -c "import json; print(json.dumps({'requests': [{'new_tokens': 4096, 'context': 0}]}))" >"$tmp/first-chunk.json"
for f in kimi_k3 step3p7_flash; do
  for img in 0 1; do
    "$cli" step --model "$fixtures/arch2026/$f.json" --gpu B200 --tp 8 --images-per-request $img --image-size 1024 \
      --json <"$tmp/first-chunk.json" >"$tmp/$f-step-$img.json"
  done
  check "vision: $f answers an image per request in the first chunk's step" python3 -c "
import json; a, b = (json.load(open('$tmp/$f-step-%d.json' % i))['total_us'] for i in (0, 1))
assert b > a, (a, b)"
done
"$cli" inspect --model "$fixtures/arch2026/step3p7_flash.json" --gpu H200 --tp 8 --images-per-request 1 \
  --image-size 1024 --json >"$tmp/step-vl.json"
check "vision: step3p7's 1024 px image is the view and 2 x 2 crops (169 + 4 x 81 tokens)" python3 -c "
import json; i=json.load(open('$tmp/step-vl.json'))['images']
assert i['tokens_per_image'] == 493 and i['patches_per_image'] == 52 * 52 + 4 * 36 * 36, i"
# audio encoders (docs/architectures.md, "Audio encoders"): the documented Qwen2-Audio fixture; the audio's tokens,
# the tower's parameters, TTFT, and the refusals by name
cp "$fixtures/audio/qwen2_audio_tower.json" "$tmp/audio.json"
"$cli" inspect --model "$tmp/audio.json" --gpu H100 --audio-seconds-per-request 10 --json >"$tmp/audio-inspect.json"
check "audio: inspect counts the tower and the audio tokens" python3 -c "
import json; d=json.load(open('$tmp/audio-inspect.json')); a=d['audio']
assert d['params_audio'] > 6e8 and a['tokens_per_request'] == 250 and a['encoder_positions'] == 1500, d
assert a['encoder_ms_per_request'] > 0, a"
for sec in 0 20; do
  "$cli" serve --model "$tmp/audio.json" --gpu H100 --isl 2048 --osl 64 --concurrency 4 \
    --audio-seconds-per-request $sec --json >"$tmp/audio-serve-$sec.json"
done
check "audio: TTFT grows with audio per request" python3 -c "
import json; a, b = (json.load(open('$tmp/audio-serve-%d.json' % i))['ttft_ms'] for i in (0, 20))
assert b > a, (a, b)"
"$cli" step --model llama-3.1-8b-instruct --gpu H100 --audio-seconds-per-request 5 <"$tmp/decodes.json" 2>"$tmp/err"
check "audio: a text-only model refuses audio" grep -q "no audio_config" "$tmp/err"
"$cli" serve --model "$tmp/audio.json" --gpu H100 --audio-seconds-per-request 45 2>"$tmp/err"
check "audio: a clip past the tower's window names max_source_positions" grep -q "max_source_positions" "$tmp/err"
"$cli" serve --model "$tmp/audio.json" --gpu H100 --audio-seconds-per-request -3 2>"$tmp/err"
check "audio: a negative --audio-seconds-per-request is named" grep -q -- "--audio-seconds-per-request must be" "$tmp/err"
# experiment files (docs/experiments.md): the examples run as documented, from a folder where examples/ is the
# repository's; a file and the same options as flags give the same answer; the command line wins over the file;
# mistakes name file, line and key, with "did you mean"
repo=$(cd "$fixtures/../.." && pwd)
mkdir -p "$tmp/exp" && ln -s "$repo/examples" "$tmp/exp/examples"
(cd "$tmp/exp" && "$cli" plan --config examples/experiments/plan.yaml >plan.txt 2>&1 &&
   "$cli" sweep --config examples/experiments/sweep.yaml --csv sweep.csv 2>/dev/null &&
   "$cli" simulate --config examples/experiments/simulate.yaml >sim.txt 2>&1 &&
   "$cli" simulate --config examples/experiments/simulate.yaml --request-rate 16 --json >sim16.json 2>/dev/null)
check "experiment examples run as documented" test $? -eq 0
check "experiment plan lists the top 3" grep -q "top 3 per GPU" "$tmp/exp/plan.txt"
check "experiment sweep: 9 concurrencies x 2 TP" test "$(tail -n +2 "$tmp/exp/sweep.csv" | wc -l)" -eq 18
check "experiment simulate --request-rate 16 wins" python3 -c "import json,sys; d=json.load(open('$tmp/exp/sim16.json')); sys.exit(not (d['completed'] == 200 and d['duration'] < 200 / 16 * 1.5))"
check "experiment simulate: the goodput asked for" grep -q "Request goodput" "$tmp/exp/sim.txt"
"$cli" plan --config "$repo/examples/experiments/plan.yaml" --json >"$tmp/exp/a.json" 2>/dev/null
"$cli" plan --model llama-3.1-70b-instruct --gpus H100,H200 --engine vllm --isl 1024 --osl 256 --tp-list 1,2,4,8 \
  --max-concurrency 256 --max-ttft-ms 2000 --max-tpot-ms 50 --top 3 --json >"$tmp/exp/b.json" 2>/dev/null
check "experiment file = the same flags" cmp -s "$tmp/exp/a.json" "$tmp/exp/b.json"
(cd "$tmp/exp" && "$cli" run examples/experiments/plan.yaml --json >run.json 2>/dev/null)
check "mfusim run FILE = its command --config FILE" cmp -s "$tmp/exp/a.json" "$tmp/exp/run.json"
printf 'command: plna\nmodel: qwen3-8b\n' >"$tmp/exp/cmd.yaml"
"$cli" run "$tmp/exp/cmd.yaml" 2>"$tmp/err"; check "run: unknown command, exit 1" test $? -eq 1
check "run: unknown command located, did you mean" grep -q "cmd.yaml:1:1: unknown command 'plna'; did you mean 'plan'" "$tmp/err"
printf 'model: qwen3-8b\n' >"$tmp/exp/nocmd.yaml"
"$cli" run "$tmp/exp/nocmd.yaml" 2>"$tmp/err"; check "run: a file without command: says so" grep -q "no 'command:' key" "$tmp/err"
"$cli" run 2>"$tmp/err"; check "run without FILE: exit 2" test $? -eq 2
"$cli" simulate --config "$repo/examples/experiments/simulate.yaml" --json --num-prompts 20 >"$tmp/exp/s.json" 2>/dev/null
check "the command line wins over the file" python3 -c "import json,sys; sys.exit(json.load(open('$tmp/exp/s.json'))['completed'] != 20)"
printf 'command: plan\nworkload:\n  isl: 1024\n  osll: 128\n' >"$tmp/exp/typo.yaml"
"$cli" plan --config "$tmp/exp/typo.yaml" 2>"$tmp/err"; check "experiment unknown key exit 1" test $? -eq 1
check "experiment unknown key: file, line, key, did you mean" grep -q "typo.yaml:4:3: unknown key 'osll' in section 'workload'.*did you mean 'osl'" "$tmp/err"
printf 'model: llama-3.1-8b-instruct\ngpus: H100\nisl: many\n' >"$tmp/exp/value.yaml"
"$cli" plan --config "$tmp/exp/value.yaml" 2>"$tmp/err"
check "experiment bad value names its line" grep -q "isl expects an integer, got 'many' (.*value.yaml:3:1: key 'isl')" "$tmp/err"
printf 'command: sweep\nmodel: qwen3-8b\n' >"$tmp/exp/other.yaml"
"$cli" plan --config "$tmp/exp/other.yaml" 2>"$tmp/err"; check "experiment for another command" grep -q "other.yaml:1:1: this experiment is for 'mfusim sweep'" "$tmp/err"
printf 'model: [qwen3-8b\n' >"$tmp/exp/broken.yaml"
"$cli" plan --config "$tmp/exp/broken.yaml" 2>"$tmp/err"; check "experiment bad YAML located" grep -q "broken.yaml:2:1: not valid YAML" "$tmp/err"
printf " ,b]'" >"$tmp/exp/stall.yaml"   # yaml-cpp 0.7's LoadAll loops on this, allocating (the fuzz target found it)
timeout 20 "$cli" plan --config "$tmp/exp/stall.yaml" 2>"$tmp/err"; check "experiment: a stalling YAML input ends, exit 1" test $? -eq 1
check "experiment: a stalling YAML input is not valid YAML" grep -q "stall.yaml:1:2: not valid YAML" "$tmp/err"
"$cli" plan --help | grep -q -- "--config FILE"; check "plan --help lists --config" test $? -eq 0
# the container and Kubernetes Job recipe (docs/kubernetes.md), as far as no cluster and no container engine allow
python3 "$repo/tests/cli/kubernetes_check.py" "$cli" "$repo"; check "kubernetes Job and Dockerfile" test $? -eq 0

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$browser" ]; then
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$tmp/plan.html" >"$tmp/dom.html" 2>/dev/null
    check "plan --html runs in a headless browser" grep -q "<body data-ready=\"$(grep -c '<tr><td' "$tmp/plan.html")\"" "$tmp/dom.html"
fi
if command -v rsvg-convert >/dev/null; then
    rsvg-convert -o "$tmp/pareto.png" "$tmp/pareto.svg"; check "plan chart renders (rsvg-convert)" test -s "$tmp/pareto.png"
fi
if command -v script >/dev/null; then
    script -qec "'$cli' calibrate --kernels '$tmp/kern' --gpu A100 -o '$tmp/kcal2.json'" /dev/null >"$tmp/tty.txt" 2>&1
    check "calibrate --kernels on a terminal shows its progress" grep -q "calibrate --kernels: grid round 1" "$tmp/tty.txt"
fi

# The checkpoint's KV-cache format (docs/engine.md, "The checkpoint's KV cache"): a ModelOpt checkpoint stating FP8
# KV runs FP8 on an engine whose default follows it, 16-bit where it does not or where --kv-quant says so.
mkdir -p "$tmp/modelopt"
cat >"$tmp/modelopt/config.json" <<'JSON'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
 "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
 "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}
JSON
echo '{"quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}}' >"$tmp/modelopt/hf_quant_config.json"
kv_of() { python3 -c "import json; d=json.load(open('$1')); print(d['kv_cache_dtype'], d['kv_cache_from'])"; }
"$cli" inspect --model "$tmp/modelopt" --gpu H100 --engine sglang --json >"$tmp/kv1.json"
check "checkpoint FP8 KV taken by sglang" test "$(kv_of "$tmp/kv1.json")" = "fp8 checkpoint"
"$cli" inspect --model "$tmp/modelopt" --gpu H100 --engine vllm --engine-version 0.12.0 --json >"$tmp/kv2.json"
check "checkpoint FP8 KV not taken by vllm 0.12.0" test "$(kv_of "$tmp/kv2.json")" = "bf16 engine"
"$cli" inspect --model "$tmp/modelopt" --gpu H100 --engine sglang --kv-quant bf16 --json >"$tmp/kv3.json"
check "--kv-quant bf16 wins over the checkpoint" test "$(kv_of "$tmp/kv3.json")" = "bf16 deployment"
"$cli" inspect --model "$tmp/modelopt" --gpu H100 --engine sglang >"$tmp/kv4.txt"
check "inspect says where the KV format comes from" grep -q "fp8 (the checkpoint's hf_quant_config.json" "$tmp/kv4.txt"
"$cli" inspect --model "$tmp/modelopt" --gpu H100 --fp8-kv --kv-quant bf16 >/dev/null 2>"$tmp/kv5.err"
check "contradictory KV flags refused" grep -q "contradicts --fp8-kv" "$tmp/kv5.err"
echo '{"quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": 8}}' >"$tmp/modelopt/hf_quant_config.json"
"$cli" inspect --model "$tmp/modelopt" --gpu H100 >/dev/null 2>"$tmp/kv6.err"
check "malformed kv_cache_quant_algo names file and key" grep -q "hf_quant_config.json.*quantization.kv_cache_quant_algo" "$tmp/kv6.err"

# Physical invariants of the serving answers on the GPUs without serving data (docs/serving.md, "Checked on unseen
# GPUs"): a decode step streams at least the GPU's share of the weights at the GPU's HBM bandwidth; Blackwell is not
# slower than H200 on the same deployment and batch; NVFP4 weights decode no slower than FP8 ones on Blackwell;
# GB200 / GB300 (more clock, the same HBM) no slower than B200 / B300; the RTX PRO 6000's TP all-reduce crosses PCIe,
# slower than NVLink's; a prompt's TTFT is no shorter than its FLOPs at the dense FP4 peak of its GPUs.
"$cli" gpus --json >"$tmp/gpus_bw.json"
for g in H200 B200 B300 GB200 GB300 RTX-PRO-6000; do
  for q in fp8 nvfp4; do
    "$cli" serve --model llama-3.1-70b-instruct --gpu "$g" --tp 4 --quant "$q" --kv-quant fp8 --isl 1024 --osl 1024 \
      --concurrency 16 --json >"$tmp/inv_${g}_$q.json" 2>"$tmp/inv.err" || echo "{}" >"$tmp/inv_${g}_$q.json"
  done
done
"$cli" serve --model deepseek-v3 --gpu B200 --tp 8 --ep 8 --engine sglang --isl 1024 --osl 1024 --concurrency 64 \
  --json >"$tmp/inv_ds_b200.json"
"$cli" serve --model deepseek-v3 --gpu B200 --tp 1 --ep 8 --attention-dp 8 --engine sglang --kv-quant fp8 --isl 1024 \
  --osl 1024 --concurrency 64 --json >"$tmp/inv_dsdp_b200.json"
check "serving physical invariants on unseen GPUs" python3 -c "
import json, math
t = '$tmp'
gpus = {g['name']: g for g in json.load(open(t + '/gpus_bw.json'))}
r = {(g, q): json.load(open(t + '/inv_%s_%s.json' % (g, q))) for g in gpus if g in
     ('H200', 'B200', 'B300', 'GB200', 'GB300', 'RTX-PRO-6000') for q in ('fp8', 'nvfp4')}
params = 70.55e9  # Llama 3.1 70B (model card)
for (g, q), d in r.items():
    if g == 'H200' and q == 'nvfp4': continue  # no FP4 tensor cores: weight-only there
    assert d and math.isfinite(d['ttft_ms']) and math.isfinite(d['tpot_ms']), (g, q, d)
    per_byte = 1.0 if q == 'fp8' else 0.5 + 1 / 16
    floor_ms = params * per_byte / 4 / (gpus[g]['memory_bandwidth_gbs'] * 1e9) * 1e3
    assert d['decode_step_ms'] >= floor_ms and d['tpot_ms'] >= floor_ms, (g, q, d['tpot_ms'], floor_ms)
    flops_ms = 2 * params * 1024 / (4 * gpus[g]['peak_fp4_tflops'] * 1e12) * 1e3 if gpus[g]['peak_fp4_tflops'] else 0
    assert d['ttft_ms'] >= flops_ms, (g, q, d['ttft_ms'], flops_ms)
same = lambda a, b: a['decode_batch'] == b['decode_batch']
for g in ('B200', 'B300', 'GB200', 'GB300'):
    assert same(r[(g, 'fp8')], r[('H200', 'fp8')]) and r[(g, 'fp8')]['tpot_ms'] < r[('H200', 'fp8')]['tpot_ms'], g
    assert r[(g, 'fp8')]['ttft_ms'] < r[('H200', 'fp8')]['ttft_ms'], g
    assert r[(g, 'nvfp4')]['tpot_ms'] < r[(g, 'fp8')]['tpot_ms'], g
for gb, b in (('GB200', 'B200'), ('GB300', 'B300')):
    for q in ('fp8', 'nvfp4'):
        assert r[(gb, q)]['tpot_ms'] <= r[(b, q)]['tpot_ms'] * (1 + 1e-9), (gb, q)
ar = lambda d: d['decode_step']['breakdown']['tp_allreduce']['time_us']
assert ar(r[('RTX-PRO-6000', 'fp8')]) > 2 * ar(r[('B200', 'fp8')])
for f in ('/inv_ds_b200.json', '/inv_dsdp_b200.json'):
    d = json.load(open(t + f))
    assert math.isfinite(d['ttft_ms']) and d['tpot_ms'] > 0, f
"

echo "$passed passed, $failed failed"
test "$failed" -eq 0

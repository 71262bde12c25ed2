"""The Python surface: catalogues, construction, the input forms step_time accepts, details, reports, serving."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest

import mfusim
from conftest import COMPAT, ROOFLINE, as_array


def test_version_and_catalogues():
    assert mfusim.version() == mfusim._mfusim.HEADER_VERSION == "1.0.0"
    assert mfusim.version_number() == 10000
    assert "llama-3.1-8b-instruct" in mfusim.models()
    assert "H100" in mfusim.gpus()
    assert mfusim.__version__ == mfusim.version()


def test_request_dtype_is_the_c_layout():
    assert mfusim.REQUEST_DTYPE.itemsize == 24
    assert [mfusim.REQUEST_DTYPE.fields[n][1] for n in ("new_tokens", "context", "flags", "reserved")] == [0, 8, 16, 20]


def test_context_manager_and_close():
    with mfusim.Estimator(**ROOFLINE) as e:
        assert not e.closed
        assert e.step_time([(1, 2048)]) > 0
        assert "llama-3.1-8b-instruct" in repr(e)
    assert e.closed and "closed" in repr(e)
    e.close()  # idempotent
    with pytest.raises(mfusim.InvalidArgumentError, match="closed"):
        e.step_time([(1, 2048)])
    with pytest.raises(mfusim.InvalidArgumentError, match="closed"):
        e.step_time_batch([(1, 2048)], [1])


def test_every_option_is_accepted():
    e = mfusim.Estimator("qwen3-8b", "H100", tp=2, engine="sglang", quant="fp8", ep=1, attention_dp=1,
                         fp8_kv=True, fp8_gemm=True)
    assert e.step_time([(1, 1024)]) > 0
    e.close()
    c = mfusim.Estimator(world_size=1, num_nodes=1, deepep=False, two_batch_overlap=False, sm_ratio=0.8, **COMPAT)
    assert c.step_time([(1, 1024)]) > 0
    c.close()


def test_load_warnings_is_a_list(est):
    assert isinstance(est.load_warnings, list)
    assert all(isinstance(w, str) and w for w in est.load_warnings)


def test_every_input_form_gives_the_same_time(est, mixed, mixed_array):
    want = est.step_time(mixed_array)
    assert math.isfinite(want) and want > 0
    assert est.step_time(mixed) == want
    assert est.step_time([list(r) for r in mixed]) == want
    assert est.step_time(tuple(mixed)) == want
    assert est.step_time(mfusim.requests([r[0] for r in mixed], [r[1] for r in mixed], [r[2] for r in mixed])) == want
    assert est.step_time(np.ascontiguousarray(mixed_array[::-1])) == pytest.approx(want, rel=1e-12)
    pairs = [(1, 256 + i * 13) for i in range(300)]
    pair_array = np.array(pairs, dtype=np.int64)
    want_pairs = est.step_time(pairs)
    assert est.step_time(pair_array) == want_pairs
    assert est.step_time(np.asfortranarray(pair_array)) == want_pairs
    assert est.step_time(np.array(pairs, dtype=np.int64)[:, :]) == want_pairs
    assert est.step_time([(np.int64(a), np.int32(b)) for a, b in pairs]) == want_pairs
    assert est.step_time(as_array(pairs)[::2]) == est.step_time(pairs[::2])  # strided: copied, same answer


def test_flags_matter(est):
    with_output = est.step_time([(512, 0)])
    no_output = est.step_time([(512, 0, mfusim.NO_OUTPUT)])
    assert no_output < with_output


def test_empty_step(est, compat):
    # Roofline: the engine's fixed per-step overhead (0 for the fitted vllm profile); compat: 0.
    assert est.step_time([]) == est.step_detail([]).total_us >= 0
    assert est.step_time(np.zeros(0, dtype=mfusim.REQUEST_DTYPE)) == est.step_time([])
    assert compat.step_time([]) == 0


def test_decode_grows_with_batch_and_context(est):
    assert est.step_time([(1, 2048)] * 64) > est.step_time([(1, 2048)] * 8)
    assert est.step_time([(1, 65536)] * 32) > est.step_time([(1, 1024)] * 32)


@pytest.mark.parametrize(
    "bad, exc",
    [
        ([(1.5, 10)], TypeError),
        ([("1", 10)], TypeError),
        ([(1,)], ValueError),
        ([(1, 2, 3, 4)], ValueError),
        ([1, 2], TypeError),
        (5, TypeError),
        (np.zeros((3, 2), dtype=np.int32), TypeError),
        (np.zeros((3, 3), dtype=np.int64), TypeError),
        (np.zeros((3, 2), dtype=np.float64), TypeError),
        (np.zeros(3, dtype=[("a", "<i8"), ("b", "<i8"), ("c", "<u4"), ("d", "<u4")]), TypeError),
        (b"abc", TypeError),
        ([(2**64, 1)], OverflowError),
        ([(1, 1, -1)], ValueError),
    ],
)
def test_malformed_requests_are_python_errors(est, bad, exc):
    with pytest.raises(exc):
        est.step_time(bad)


def test_step_detail(est, compat, mixed):
    for e in (est, compat):
        d = e.step_detail(mixed)
        assert d.total_us == e.step_time(mixed)
        assert d.bound in {"compute", "memory", "communication", "fixed", "none"}
        assert [o.name for o in d.ops][:3] == ["qkv_proj", "attn_prefill", "attn_decode"]
        assert d.ops[mfusim._mfusim.OP_CAPACITY - 32].name == "qkv_proj"
        assert all(isinstance(o, mfusim.OpDetail) for o in d.ops)
        assert d.op("attn_decode").time_us > 0
        assert d.to_dict()["total_us"] == d.total_us
        assert len(d.to_rows()) == len(d.ops)
    assert est.step_detail(mixed).op("engine").bound == "fixed"
    assert est.step_detail(mixed).op("attn_decode").source == "analytical"


def test_estimate(compat, est):
    r = compat.estimate(input_len=4096, output_len=2048)
    assert isinstance(r, mfusim.Report)
    assert r["prefill.ttft_ms"] > 0 and r["decode.tpot_ms"] > 0
    assert "prefill.ttft_ms" in r and len(r) == len(r.values) and list(r)[0] == next(iter(r.values))
    assert r.to_dict()["prefill.ttft_ms"] == r["prefill.ttft_ms"]
    assert isinstance(r.warnings, tuple) and isinstance(r.soft_errors, tuple)
    assert compat.estimate() == compat.estimate(input_len=4096, output_len=2048)
    decode_only = compat.estimate(phases="decode")
    assert "prefill.ttft_ms" not in decode_only and decode_only.get("prefill.ttft_ms") is None
    with pytest.raises(mfusim.NotFoundError):
        decode_only["prefill.ttft_ms"]
    assert est.estimate(input_len=1024, output_len=128, decode_batch=16)["decode.tpot_ms"] > 0
    with pytest.raises(mfusim.InvalidArgumentError):
        compat.estimate(phases="sideways")


def test_serve_disagg(est):
    """mfusim_disagg_estimate through the binding: TTFT is its parts, more prefill workers cut the prefill queue, the
    GPUs of both pools count, and bad pools are refused with the library's error (docs/disagg.md)."""
    with mfusim.Estimator(**ROOFLINE, tp=2) as decode:
        r = mfusim.serve_disagg(est, decode, input_len=2048, output_len=256, concurrency=32, decode_batch=64)
        assert isinstance(r, mfusim.DisaggResult)
        parts = r.admission_ms + r.prefill_queue_ms + r.prefill_ms + r.transfer_ms + r.decode_wait_ms
        assert r.ttft_ms == pytest.approx(parts, rel=1e-9)
        assert (r.prefill_gpus, r.decode_gpus) == (1, 2) and not r.transfer_over_network
        assert r.output_throughput_tok_s_gpu == pytest.approx(r.request_throughput_req_s * 256 / 3, rel=1e-9)
        more = mfusim.serve_disagg(est, decode, 2048, 256, 32, prefill_workers=4, decode_batch=64)
        assert more.prefill_queue_ms < r.prefill_queue_ms
        assert list(r.to_dict())[:3] == ["ttft_ms", "tpot_ms", "e2e_ms"]
        with pytest.raises(mfusim.InvalidArgumentError, match="prefill_workers"):
            mfusim.serve_disagg(est, decode, 2048, 256, 32, prefill_workers=0)
    with pytest.raises(mfusim.UnsupportedError):
        with mfusim.Estimator(**COMPAT) as compat:
            mfusim.serve_disagg(compat, compat, 1024, 128, 4)


def test_serve(est):
    r = est.serve(input_len=1024, output_len=128, concurrency=16)
    assert isinstance(r, mfusim.ServingResult)
    assert r.ttft_ms > 0 and r.tpot_ms > 0 and r.output_throughput_tok_s_gpu > 0
    assert r.e2e_ms == pytest.approx(r.ttft_ms + 127 * r.tpot_ms, rel=1e-9)
    assert r.limited_by in {"none", "token_budget", "max_seqs", "kv_capacity"}
    row = r.to_dict()
    assert list(row) == [
        "ttft_ms", "tpot_ms", "e2e_ms", "output_throughput_tok_s_gpu", "request_throughput_req_s",
        "decode_step_ms", "mixed_step_ms", "mixed_step_fraction", "decode_batch", "prefill_tokens_per_mixed_step",
        "prefill_steps_per_request", "queue_ms", "running_requests", "kv_capacity_tokens", "limited_by",
    ]
    limited = est.serve(1024, 128, 64, max_seqs=8)
    assert limited.limited_by == "max_seqs"
    assert est.serve(1024, 128, 64, max_batched_tokens=2048, gpu_memory_utilization=0.9).tpot_ms > 0
    first_wave = est.serve(1024, 128, 64, requests_per_client=1)
    assert first_wave.ttft_ms > 0 and first_wave != est.serve(1024, 128, 64)


def test_results_pickle(est, compat, mixed):
    for value in (est.step_detail(mixed), compat.estimate(), est.serve(1024, 128, 8)):
        assert pickle.loads(pickle.dumps(value)) == value


def test_engine_terms(est, compat):
    t = est.engine_terms()
    assert isinstance(t, mfusim.EngineTerms) and t.name == "vllm"
    assert t.max_seqs > 0 and t.max_batched_tokens > 0 and isinstance(t.mixed_batches, bool)
    with pytest.raises(mfusim.UnsupportedError):
        compat.engine_terms()


def test_calibration_scales_the_families_it_names(est, tmp_path):
    decode = [(1, 4096)] * 64
    doubled = '{"mfusim_calibration": 1, "efficiency": {"decode_attention": 2.0}}'
    with mfusim.Estimator(**ROOFLINE, calibration=doubled) as cal:
        base = est.step_detail(decode)
        got = cal.step_detail(decode)
        attention = base.op("attn_decode").time_us
        assert attention > 0
        assert got.op("attn_decode").time_us == pytest.approx(2 * attention, rel=1e-12)
        assert got.total_us == pytest.approx(base.total_us + attention, rel=1e-12)
    path = tmp_path / "cal.json"
    path.write_text('{"mfusim_calibration": 1, "engine": {"step_us": 250}}')
    with mfusim.Estimator(**ROOFLINE, calibration=path) as cal:
        assert cal.step_time([]) == 250.0
    with pytest.raises(mfusim.ConfigError, match="efficiency.gemm"):
        mfusim.Estimator(**ROOFLINE, calibration='{"mfusim_calibration": 1, "efficiency": {"gemm": 9}}')


def test_speculative_decoding_options():
    """The mfusim_options speculative-decoding fields (docs/speculative.md), as keyword arguments."""
    decodes = [(1, 2048)] * 32
    with mfusim.Estimator(**ROOFLINE) as plain, \
            mfusim.Estimator(speculative="eagle", num_speculative_tokens=3, acceptance_rate=0.8, **ROOFLINE) as rate, \
            mfusim.Estimator(speculative="eagle", num_speculative_tokens=3, mean_accepted_length=2.952,
                             **ROOFLINE) as length, \
            mfusim.Estimator(speculative="ngram", num_speculative_tokens=3, acceptance_rate=0.8, **ROOFLINE) as ngram:
        # A verify step runs k + 1 tokens per request, and EAGLE's drafts add a layer's passes on top of it.
        assert rate.step_time(decodes) > ngram.step_time(decodes) > plain.step_time(decodes)
        # (1 - 0.8^4) / (1 - 0.8) = 2.952 tokens per step: the two ways of saying it give one estimator.
        assert rate.step_time(decodes) == length.step_time(decodes)
        base, fast = plain.serve(1024, 256, 16), rate.serve(1024, 256, 16)
        assert fast.decode_step_ms > base.decode_step_ms
        assert fast.tpot_ms < base.tpot_ms  # a step advances 2.95 tokens for less than 2.95 plain steps' time
    with pytest.raises(mfusim.UnknownNameError, match="speculative"):
        mfusim.Estimator(speculative="medusa", num_speculative_tokens=3, acceptance_rate=0.8, **ROOFLINE)
    with pytest.raises(mfusim.InvalidArgumentError):
        mfusim.Estimator(speculative="eagle", num_speculative_tokens=3, acceptance_rate=1.5, **ROOFLINE)
    with pytest.raises(mfusim.InvalidArgumentError):  # drafts without a rate or a length
        mfusim.Estimator(speculative="eagle", num_speculative_tokens=3, **ROOFLINE)
    with pytest.raises(mfusim.ConfigError, match="num_nextn_predict_layers"):  # llama has no MTP layer
        mfusim.Estimator(speculative="mtp", acceptance_rate=0.8, **ROOFLINE)
    with pytest.raises(TypeError):
        mfusim.Estimator(speculative="eagle", num_speculative_tokens="3", acceptance_rate=0.8, **ROOFLINE)


def test_draft_model_speculation():
    """speculative="draft_model" with its draft_model (mfusim_options.draft_model): a second model drafts."""
    decodes = [(1, 2048)] * 16
    opts = dict(model="llama-3.1-70b-instruct", gpu="H100", tp=4)
    with mfusim.Estimator(speculative="ngram", num_speculative_tokens=2, acceptance_rate=0.7, **opts) as ngram, \
            mfusim.Estimator(speculative="draft_model", draft_model="llama-3.1-8b-instruct",
                             num_speculative_tokens=2, acceptance_rate=0.7, **opts) as drafted, \
            mfusim.Estimator(model="llama-3.1-8b-instruct", gpu="H100", tp=4) as small:
        # Two passes of the 8B model on top of the verify step, each about one 8B decode step (the first runs the
        # k + 1 verified tokens per request, the later ones one).
        extra = drafted.step_time(decodes) - ngram.step_time(decodes)
        assert small.step_time(decodes) < extra < 2.4 * small.step_time(decodes)
    with pytest.raises(mfusim.InvalidArgumentError, match="draft_model"):
        mfusim.Estimator(speculative="draft_model", num_speculative_tokens=2, acceptance_rate=0.7, **opts)
    with pytest.raises(mfusim.UnknownNameError):
        mfusim.Estimator(speculative="draft_model", draft_model="no-such-model", num_speculative_tokens=2,
                         acceptance_rate=0.7, **opts)


# A small language model with a Qwen3-VL-shaped vision tower and a Qwen2-Audio-shaped audio tower (inline JSON).
_MULTIMODAL = json.dumps({
    "text_config": {"hidden_size": 2048, "num_hidden_layers": 8, "num_attention_heads": 16,
                    "num_key_value_heads": 4, "intermediate_size": 6144, "vocab_size": 32000},
    "vision_config": {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304, "num_heads": 16,
                      "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2},
    "audio_config": {"d_model": 1280, "encoder_layers": 32, "encoder_attention_heads": 20,
                     "encoder_ffn_dim": 5120, "num_mel_bins": 128, "max_source_positions": 1500},
})


def test_moe_routing_option():
    """moe_routing (the CLI's --moe-routing, mfusim_options.moe_routing_alpha): a skewed power law loads the busiest
    expert-parallel rank more than routing at random, so a compute-bound MoE prefill at EP 8 is slower; a dense
    model is unchanged."""
    step = [(8192, 0)]
    moe = dict(model="qwen3-30b-a3b", gpu="H100", tp=8, ep=8)
    with mfusim.Estimator(**moe) as served, mfusim.Estimator(moe_routing="random", **moe) as same, \
            mfusim.Estimator(moe_routing="power-law:1.2", **moe) as skewed:
        assert same.step_time(step) == served.step_time(step)
        assert skewed.step_time(step) > served.step_time(step)
    with mfusim.Estimator(model="llama-3.1-8b-instruct", gpu="H100") as dense, \
            mfusim.Estimator(model="llama-3.1-8b-instruct", gpu="H100", moe_routing="power-law:1.2") as dense_pl:
        assert dense_pl.step_time(step) == dense.step_time(step)
    for bad in ("uniform", "power-law:", "power-law:0", "power-law:11", "power-law:nan", 1.2):
        with pytest.raises(mfusim.InvalidArgumentError, match="moe_routing"):
            mfusim.Estimator(moe_routing=bad, **moe)


def test_image_and_audio_options():
    """The mfusim_options image and audio fields (docs/architectures.md), as keyword arguments: the towers run in
    the step of a request's first prefill chunk only, and nothing changes without them."""
    first, later = [(2048, 0)], [(2048, 2048)]
    kw = dict(model=_MULTIMODAL, gpu="H100")
    with mfusim.Estimator(**kw) as text, \
            mfusim.Estimator(images_per_request=1, image_size=1024, **kw) as square, \
            mfusim.Estimator(images_per_request=1, image_size=(1024, 1024), **kw) as pair, \
            mfusim.Estimator(images_per_request=2, image_size=(1024, 1024), **kw) as two, \
            mfusim.Estimator(audio_seconds_per_request=10.0, **kw) as audio, \
            mfusim.Estimator(images_per_request=1, audio_seconds_per_request=10.0, **kw) as both, \
            mfusim.Estimator(image_size=640, **kw) as ignored:
        t = text.step_time(first)
        image = square.step_time(first) - t
        clip = audio.step_time(first) - t
        assert image > 0 and clip > 0
        assert pair.step_time(first) == square.step_time(first)
        assert two.step_time(first) - t == pytest.approx(2 * image, rel=1e-9)
        assert both.step_time(first) - t == pytest.approx(image + clip, rel=1e-9)
        assert ignored.step_time(first) == t  # a size without images changes nothing
        for e in (square, audio, both):
            assert e.step_time(later) == text.step_time(later)  # a later chunk runs no encoder
        assert audio.serve(2048, 128, 1).ttft_ms > text.serve(2048, 128, 1).ttft_ms
        assert any("audio tower" in w for w in audio.load_warnings)
    with pytest.raises(mfusim.InvalidArgumentError, match="images_per_request"):
        mfusim.Estimator(images_per_request=65, **kw)
    with pytest.raises(mfusim.InvalidArgumentError, match="image width"):
        mfusim.Estimator(images_per_request=1, image_size=(0, 10), **kw)
    with pytest.raises(mfusim.InvalidArgumentError, match="image_size"):
        mfusim.Estimator(images_per_request=1, image_size=(1, 2, 3), **kw)
    for bad in (-1.0, 3601.0, math.nan, math.inf):
        with pytest.raises(mfusim.InvalidArgumentError, match="audio_seconds_per_request"):
            mfusim.Estimator(audio_seconds_per_request=bad, **kw)
    with pytest.raises(mfusim.UnsupportedError, match="max_source_positions"):
        mfusim.Estimator(audio_seconds_per_request=45.0, **kw)
    with pytest.raises(mfusim.ConfigError, match="audio_config"):
        mfusim.Estimator(audio_seconds_per_request=10.0, **ROOFLINE)
    with pytest.raises(mfusim.ConfigError, match="vision_config"):
        mfusim.Estimator(images_per_request=1, **ROOFLINE)
    with pytest.raises(TypeError):
        mfusim.Estimator(audio_seconds_per_request="10", **kw)

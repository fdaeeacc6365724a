"""Synthetic tasks, greedy decoding, training, and saving/reopening models safely."""

from __future__ import annotations

import pickle
from dataclasses import replace

import pytest
import torch

from models.errors import InvalidParameterError, TrainingDivergedError
from models.transformer import (
    ARCHITECTURES,
    BOS,
    EOS,
    PAD,
    TASKS,
    ModelConfig,
    Seq2SeqSession,
    TaskConfig,
    decode_output,
    greedy_decode,
    lm_sequences,
    make_batch,
    sequence_accuracy,
    target_of,
)

SMALL = ModelConfig(num_encoder_layers=1, num_decoder_layers=1, d_model=32, num_heads=2,
                    d_ff=64)


@pytest.mark.parametrize("task", TASKS)
def test_batches_follow_the_task_definition(task):
    cfg = TaskConfig(task, vocab=7, min_len=2, max_len=9)
    src, tgt_in, tgt_out = make_batch(cfg, 200, torch.Generator().manual_seed(3))
    assert src.shape == tgt_in.shape == tgt_out.shape == (200, 10)
    lengths = set()
    for s, ti, to in zip(src.tolist(), tgt_in.tolist(), tgt_out.tolist(), strict=True):
        n = s.index(EOS)
        lengths.add(n)
        xs = [v - 3 for v in s[:n]]
        ys = [v + 3 for v in target_of(task, xs)]
        assert all(0 <= v < 7 for v in xs)
        assert s[n + 1:] == [PAD] * (9 - n)
        assert ti[: n + 1] == [BOS, *ys] and to[: n + 1] == [*ys, EOS]
        assert ti[n + 1:] == to[n + 1:] == [PAD] * (9 - n)
    assert lengths == set(range(2, 10))   # variable lengths, so padding matters


def test_python_reference_of_each_task():
    xs = [3, 1, 2, 2]
    assert target_of("copy", xs) == xs
    assert target_of("reverse", xs) == [2, 2, 1, 3]
    assert target_of("sort", xs) == [1, 2, 2, 3]
    assert target_of("shift", xs) == [1, 2, 2, 3]
    with pytest.raises(InvalidParameterError):
        target_of("fly", xs)


@pytest.mark.parametrize("bad", [dict(task="fly"), dict(vocab=1), dict(min_len=0),
                                 dict(min_len=5, max_len=4)])
def test_bad_task_configs_are_refused(bad):
    with pytest.raises(InvalidParameterError):
        TaskConfig(**bad)


def test_batches_are_seeded():
    cfg = TaskConfig()
    a = make_batch(cfg, 8, torch.Generator().manual_seed(1))
    b = make_batch(cfg, 8, torch.Generator().manual_seed(1))
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


def test_greedy_decode_shapes_and_padding_after_eos():
    cfg = TaskConfig("copy", 5, 2, 4)
    model = SMALL.build(cfg).eval()
    src, _, tgt_out = make_batch(cfg, 6, torch.Generator().manual_seed(0))
    out = greedy_decode(model, src, tgt_out.size(1))
    assert out.shape[0] == 6 and out.shape[1] <= tgt_out.size(1)
    for row in out.tolist():
        if EOS in row:
            assert all(v == PAD for v in row[row.index(EOS) + 1:])


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_training_learns_copy_and_resumes(arch):
    session = Seq2SeqSession(TaskConfig("copy", 5, 2, 4), replace(SMALL, architecture=arch),
                             lr=3e-3, batch_size=32)
    reports = list(session.train(150, eval_every=50))
    assert reports[-1].step == 150 and len(reports[-1].history) == 150
    first, last = reports[0].loss, sum(r.loss for r in reports[-10:]) / 10
    assert last < first / 3
    assert reports[-1].metrics["token_accuracy"] > 0.6
    more = list(session.train(10, eval_every=5))
    assert more[0].step == 151 and more[-1].step == 160   # resumed, not restarted


def test_non_finite_loss_pauses_with_typed_error():
    session = Seq2SeqSession(TaskConfig("copy", 5, 2, 4), SMALL)
    with torch.no_grad():
        session.model.final_linear.weight.fill_(float("nan"))
    with pytest.raises(TrainingDivergedError, match="learning rate"):
        list(session.train(5))


def _weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def test_a_divergence_goes_back_to_the_last_rollback_point_with_its_records():
    session = Seq2SeqSession(TaskConfig("copy", 5, 2, 4), SMALL, batch_size=16)
    weights = {0: _weights(session.model)}
    for p in session.train(25, eval_every=10):
        weights[p.step] = _weights(session.model)
    assert [s for s, _ in session.accuracy_history] == [10, 20, 25]
    session.output_cache["decoded"] = [3, 2]
    with torch.no_grad():
        session.model.final_linear.weight.fill_(float("nan"))
    with pytest.raises(TrainingDivergedError, match="learning rate") as info:
        list(session.train(5))
    good = session.good_step
    assert 0 < good < 25 and session.step == good
    assert f"at step 26. The weights of step {good} were restored" in str(info.value)
    for name, value in session.model.state_dict().items():   # the weights of that step
        assert torch.equal(value, weights[good][name]), name
    assert len(session.losses) == len(session.token_accuracy) == good
    assert [s for s, _ in session.accuracy_history] == [s for s in (10, 20) if s <= good]
    assert session.output_cache == {}
    more = list(session.train(3, eval_every=10))             # and trains on from there
    assert [p.step for p in more] == [good + 1, good + 2, good + 3]
    assert all(torch.isfinite(torch.tensor(p.loss)) for p in more)


def test_a_reopened_model_rolls_back_to_its_own_weights(tmp_path):
    session = Seq2SeqSession(TaskConfig("copy", 5, 2, 4), SMALL, batch_size=16)
    list(session.train(12, eval_every=5))
    session.save(tmp_path / "m.pt")
    again = Seq2SeqSession.load(tmp_path / "m.pt")
    saved = _weights(again.model)
    with torch.no_grad():
        again.model.final_linear.weight.fill_(float("nan"))
    with pytest.raises(TrainingDivergedError, match="weights of step 12 were restored"):
        list(again.train(3))
    assert again.step == 12 and len(again.losses) == len(again.token_accuracy) == 12
    assert all(torch.equal(v, saved[k]) for k, v in again.model.state_dict().items())


@pytest.mark.parametrize(("arch", "alphabet"), [("encoder-decoder", "digits"),
                                               ("encoder-only", "characters"),
                                               ("decoder-only", "words")])
def test_save_and_reopen_gives_the_same_predictions(tmp_path, arch, alphabet):
    task = replace(TaskConfig.for_alphabet("reverse", alphabet), min_len=3, max_len=5)
    session = Seq2SeqSession(task, replace(SMALL, architecture=arch), batch_size=16)
    list(session.train(20, eval_every=10))
    path = tmp_path / "model.pt"
    session.save(path)
    again = Seq2SeqSession.load(path)
    assert again.task == session.task and again.step == 20
    assert again.model_config.architecture == arch and type(again.model) is type(session.model)
    src, out = session.held_out
    assert torch.equal(decode_output(session.model, src, 6), decode_output(again.model, src, 6))
    assert sequence_accuracy(again.model, src, out) == sequence_accuracy(session.model, src, out)


class _Evil:
    def __reduce__(self):
        return (print, ("this must never run",))


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_a_pickle_that_would_run_code_is_refused(tmp_path, capsys):
    path = tmp_path / "evil.pt"
    with open(path, "wb") as fh:
        pickle.dump({"format": "archscope-seq2seq-1", "x": _Evil()}, fh)
    with pytest.raises(InvalidParameterError, match="not a model"):
        Seq2SeqSession.load(path)
    assert "this must never run" not in capsys.readouterr().out


def test_other_files_are_refused_with_a_message(tmp_path):
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(InvalidParameterError):
        Seq2SeqSession.load(junk)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, other)
    with pytest.raises(InvalidParameterError, match="not an ArchScope"):
        Seq2SeqSession.load(other)


def test_decoder_only_sequences_are_prompt_separator_answer():
    cfg = TaskConfig("reverse", 7, 1, 5)
    src, _, tgt_out = make_batch(cfg, 50, torch.Generator().manual_seed(4))
    seq, n = lm_sequences(src, tgt_out)
    assert seq.shape == (50, 12)
    for row, s_row, t_row, length in zip(seq.tolist(), src.tolist(), tgt_out.tolist(),
                                         n[:, 0].tolist(), strict=True):
        x, y = s_row[:length], t_row[:length]
        assert s_row[length] == EOS and list(reversed(x)) == y
        assert row == [*x, BOS, *y, EOS] + [PAD] * (12 - 2 * length - 2)


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_decode_output_pads_after_eos_for_every_architecture(arch):
    cfg = TaskConfig("copy", 5, 2, 4)
    model = replace(SMALL, architecture=arch).build(cfg).eval()
    src, _, tgt_out = make_batch(cfg, 6, torch.Generator().manual_seed(0))
    out = decode_output(model, src, tgt_out.size(1))
    assert out.shape[0] == 6 and out.shape[1] <= tgt_out.size(1)
    for row in out.tolist():
        if EOS in row:
            assert all(v == PAD for v in row[row.index(EOS) + 1:])
    assert model.training is False


def test_decoder_only_decoding_equals_one_token_at_a_time_by_hand():
    """Batched decoding of rows with different prompt lengths = the plain loop."""
    cfg = TaskConfig("reverse", 5, 1, 4)
    torch.manual_seed(3)
    model = replace(SMALL, architecture="decoder-only").build(cfg).eval()
    src, _, _ = make_batch(cfg, 8, torch.Generator().manual_seed(1))
    batched = decode_output(model, src, 5)
    for i in range(8):
        n = int((src[i] != PAD).sum()) - 1
        seq = [*src[i, :n].tolist(), BOS]
        mine = []
        for _ in range(5):
            with torch.no_grad():
                nxt = int(model(torch.tensor([seq])).argmax(-1)[0, -1])
            mine.append(nxt)
            seq.append(nxt)
            if nxt == EOS:
                break
        got = batched[i].tolist()
        assert got[: len(mine)] == mine and all(v == PAD for v in got[len(mine):])


@pytest.mark.parametrize("alphabet", ["characters", "words"])
def test_text_tokenizers_round_trip_and_refuse_unknown_tokens(alphabet):
    from models.transformer import format_sequence, parse_sequence, random_sequence

    cfg = TaskConfig.for_alphabet("reverse", alphabet)
    text = "Hello, world!" if alphabet == "characters" else "The cat sees a bird"
    symbols = parse_sequence(text, cfg)
    assert format_sequence(symbols, cfg) == text.lower()
    assert cfg.token_names()[3 + symbols[0]] in ("h", "the")
    bad = "naïve" if alphabet == "characters" else "the zebra sees a unicorn"
    with pytest.raises(InvalidParameterError, match="ï" if alphabet == "characters" else "zebra"):
        parse_sequence(bad, cfg)
    with pytest.raises(InvalidParameterError, match="at most"):
        parse_sequence(" ".join(["a"] * (cfg.max_len + 1)), cfg)
    for seed in range(5):           # examples always fit the model
        assert len(random_sequence(cfg, seed)) <= cfg.max_len


def test_a_mask_toggle_reuses_the_decoded_output_until_the_weights_change(monkeypatch):
    import models.transformer.probe as view

    session = Seq2SeqSession(TaskConfig("copy", 5, 2, 4), SMALL)
    calls = []
    real = view.decode_output
    monkeypatch.setattr(view, "decode_output", lambda *a: calls.append(1) or real(*a))
    args = (session.model, session.task, [1, 2, 3], 4, "cross", 0, 0)
    first = view.compute_transformer_trace(*args, output_cache=session.output_cache)
    toggled = view.compute_transformer_trace(*args, use_padding_mask=False,
                                             output_cache=session.output_cache)
    assert len(calls) == 1 and toggled.predicted == first.predicted
    assert not toggled.use_padding_mask
    list(session.train(1))                   # new weights: decode again
    assert session.output_cache == {}
    view.compute_transformer_trace(*args, output_cache=session.output_cache)
    assert len(calls) == 2

"""Synthetic tasks, greedy decoding, training, and saving/reopening models safely."""

from __future__ import annotations

import pickle

import pytest
import torch

from models.errors import InvalidParameterError, TrainingDivergedError
from models.seq2seq import (
    BOS,
    EOS,
    PAD,
    TASKS,
    ModelConfig,
    Seq2SeqSession,
    TaskConfig,
    greedy_decode,
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


def test_training_learns_copy_and_resumes():
    session = Seq2SeqSession(TaskConfig("copy", 5, 2, 4), SMALL, lr=3e-3, batch_size=32)
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


def test_save_and_reopen_gives_the_same_predictions(tmp_path):
    session = Seq2SeqSession(TaskConfig("reverse", 6, 3, 5), SMALL, batch_size=16)
    list(session.train(20, eval_every=10))
    path = tmp_path / "model.pt"
    session.save(path)
    again = Seq2SeqSession.load(path)
    assert again.task == session.task and again.step == 20
    src, out = session.held_out
    assert torch.equal(greedy_decode(session.model, src, 6), greedy_decode(again.model, src, 6))
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

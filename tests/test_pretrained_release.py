"""A pretrained model's weights handed back while nobody uses them and read again when
asked for (models/pretrained/model.py), and the tab that does it when out of sight
(app/tabs/pretrained/tab.py)."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest
import torch

from models.pretrained import load_pretrained
from models.pretrained.options import bundled_model_path
from tests.windows import window_of

pytestmark = pytest.mark.skipif(bundled_model_path() is None,
                                reason="the bundled all-MiniLM-L6-v2 is not installed")

TEXT = "The cat sat on the mat because it was tired."


@pytest.fixture
def minilm():
    return load_pretrained()


def test_released_weights_are_freed_and_read_again_to_the_same_results(minilm):
    before = minilm.attention(TEXT)
    emb = minilm.embed(["a dog runs", "a cat sleeps"])
    params = minilm.num_parameters
    word = weakref.ref(minilm.network.embeddings.word_embeddings.weight)
    assert minilm.release_weights()
    assert not minilm.weights_loaded
    assert not minilm.release_weights()          # nothing left to release
    gc.collect()
    assert word() is None                         # the tensors are gone, not just hidden
    assert minilm.num_parameters == params        # asked without reading anything
    assert minilm.device == torch.device("cpu")
    after = minilm.attention(TEXT)                # reads them again
    assert minilm.weights_loaded and minilm.reloads == 1
    np.testing.assert_array_equal(before.encoder_self, after.encoder_self)
    np.testing.assert_array_equal(emb, minilm.embed(["a dog runs", "a cat sleeps"]))


def test_weights_in_use_are_not_released(minilm):
    entered, leave = threading.Event(), threading.Event()
    seen = {}

    def job():
        with minilm.in_use():
            entered.set()
            leave.wait(30)
            seen["maps"] = minilm.attention(TEXT).encoder_self

    worker = threading.Thread(target=job)
    worker.start()
    assert entered.wait(30)
    assert not minilm.release_weights()           # a computation holds them
    assert minilm.weights_loaded
    leave.set()
    worker.join(30)
    assert seen["maps"].shape[:2] == (6, 12)
    assert minilm.release_weights()               # free once it ended
    with minilm.in_use():                         # entering reads them again
        assert minilm.weights_loaded and minilm.reloads == 1


def test_a_model_moved_while_released_comes_back_on_that_device(minilm, monkeypatch):
    assert minilm.release_weights()
    moved = []
    monkeypatch.setattr(torch.nn.Module, "to", lambda self, *a, **k: moved.append(a) or self)
    monkeypatch.setattr("models.devices.device_for", lambda d: torch.device("meta"))
    minilm.to("meta")                              # recorded, nothing to move
    assert moved == [] and minilm.device == torch.device("meta")
    minilm.network                                 # noqa: B018 - reads them again
    assert moved == [(torch.device("meta"),)]


def test_a_model_without_a_way_to_read_again_keeps_its_weights(minilm):
    from models.pretrained.model import PretrainedModel

    kept = PretrainedModel("x", minilm.folder, minilm.config, minilm.tokenizer,
                           minilm.network)
    assert not kept.release_weights()
    assert kept.weights_loaded


def test_a_folder_changed_since_it_was_opened_is_refused_not_read_again(tmp_path):
    pytest.importorskip("transformers", reason="writes the test folder")
    import shutil

    from app.tabs.pretrained.compute import Refused, compute
    from models.errors import PretrainedModelError
    from models.pretrained.options import PretrainedRequest
    from tests.helpers_pretrained import write_encoder

    folder = write_encoder(tmp_path / "tiny-bert", "bert")
    model = load_pretrained(folder)
    request = PretrainedRequest("a tiny test", None, None, None, 0, 0, ())
    assert not isinstance(compute(model, 1, request, None), Refused)
    assert model.release_weights()
    other = write_encoder(tmp_path / "other", "bert", seed=1)      # other weights in place
    for path in other.glob("*.safetensors"):
        shutil.copy(path, folder / path.name)
    with pytest.raises(PretrainedModelError, match="changed or are gone"):
        model.attention("a tiny test")
    refused = compute(model, 1, request, None)                # the tab's job: a clear note
    assert isinstance(refused, Refused) and "open the model again" in refused.message
    shutil.rmtree(folder)
    assert "changed or are gone" in compute(model, 1, request, None).message


def test_releasing_never_waits_for_the_weights_being_read(minilm):
    held, done = threading.Event(), threading.Event()

    def reading():
        with minilm._lock:                    # as a reload or a move holds it
            held.set()
            done.wait(30)

    worker = threading.Thread(target=reading)
    worker.start()
    assert held.wait(30)
    assert not minilm.release_weights()       # at once, not after the reader
    done.set()
    worker.join(30)
    assert minilm.release_weights()


# -- the tab ----------------------------------------------------------------------------
@pytest.fixture
def window(qtbot):
    win, tab = window_of(qtbot, ("pretrained", "positional"), "pretrained")
    qtbot.waitUntil(lambda: not tab.is_drawing(), timeout=60_000)
    yield win, tab
    win.close()


def _show(win, key: str) -> None:
    win.tabs_widget.setCurrentIndex([s.key for s in win.specs].index(key))


def test_the_tab_releases_its_weights_out_of_sight_and_computes_on_return(qtbot, window):
    win, tab = window
    model = tab.model
    if not model.weights_loaded:          # another window's tab released the shared model
        model.network                     # noqa: B018
    tab._release_timer.setInterval(100)
    freed = []
    tab.memory_freed.connect(lambda: freed.append(True))
    shown = tab.trace.attention.weights.copy()
    sentence = tab.trace.request.sentence
    # a glance away shorter than the delay keeps them
    _show(win, "positional")
    _show(win, "pretrained")
    qtbot.wait(300)
    assert model.weights_loaded and not freed
    # out of sight for longer: released, the views keep what they show
    _show(win, "positional")
    qtbot.waitUntil(lambda: not model.weights_loaded, timeout=5_000)
    assert freed == [True]
    assert tab.heads_view.weights().shape[0] == 12
    # back, and a new sentence computes (reading the weights again), as does the old one
    _show(win, "pretrained")
    reloads = model.reloads
    tab.sentence.setText("Dogs chase cats.")
    tab.request_update()
    qtbot.waitUntil(lambda: tab.trace.request.sentence == "Dogs chase cats."
                    and not tab.is_drawing(), timeout=20_000)
    assert model.weights_loaded and model.reloads == reloads + 1
    # work done out of sight (a device switch recomputes) reads them again: released
    # again as long after
    _show(win, "positional")
    qtbot.waitUntil(lambda: not model.weights_loaded, timeout=5_000)
    tab.request_update()
    qtbot.waitUntil(lambda: model.reloads == reloads + 2, timeout=20_000)
    qtbot.waitUntil(lambda: not model.weights_loaded, timeout=5_000)
    _show(win, "pretrained")
    tab.sentence.setText(sentence)
    tab.request_update()
    qtbot.waitUntil(lambda: tab.trace.request.sentence == sentence
                    and not tab.is_drawing(), timeout=20_000)
    np.testing.assert_array_equal(tab.trace.attention.weights, shown)
    assert not win.errors


def test_weights_a_computation_holds_are_released_once_it_ends(qtbot, window):
    win, tab = window
    model = tab.model
    model.network                         # noqa: B018 - loaded
    tab._release_timer.setInterval(100)
    with model.in_use():
        _show(win, "positional")
        qtbot.wait(400)                   # the timer fired (more than once) and waited
        assert model.weights_loaded
    qtbot.waitUntil(lambda: not model.weights_loaded, timeout=5_000)
    assert not win.errors

"""What the pretrained-model tab computes off the GUI thread, through
``models.pretrained``'s probe: a request (the controls as they were when asked) in, a
``Shown`` (the traces every view draws) out; and the model read from its folder with
progress and Cancel.

Nothing here is Qt; ``models.pretrained`` (and torch behind it) is imported inside the
functions, in the worker that runs them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from models.pretrained.options import MAX_SENTENCES, MIN_SENTENCES, PretrainedRequest
from models.traces.pretrained import (
    ApproxComparison,
    GenerationStep,
    NeuronView,
    NextTokens,
    SentenceAttention,
    SentenceSimilarity,
)

#: the candidates the next-token bars show
SHOWN_CANDIDATES = 15
#: bytes read between two progress reports (and Cancel checks) of a model's weights
CHUNK = 8 << 20
#: the bundled model, loaded once per process and shared by every window's tab (read-only
#: in use: a second window, or a test's fifty, must not hold fifty copies of 90 MB and
#: their buffers; a clean-clone test run grew to 26 GB before this)
_BUNDLED: list = []
_BUNDLED_LOCK = threading.Lock()


@dataclass(frozen=True)
class Shown:
    """Everything the views draw, for one request of one model."""

    request: PretrainedRequest
    model: str                  # the model's name
    model_id: int               # which model the tab had loaded (a reopened folder: another)
    kind: str                   # "encoder" or "decoder"
    attention: SentenceAttention
    neuron: NeuronView
    similarity: SentenceSimilarity | None
    next: NextTokens | None
    notes: tuple[str, ...] = field(default_factory=tuple)
    approx: ApproxComparison | None = None     # an encoder's approximate attention


@dataclass(frozen=True)
class Refused:
    """The text could not be run (too long for the model, say): why, in the model's words;
    the views keep what they showed."""

    request: PretrainedRequest
    message: str


def split_sentences(text: str) -> tuple[str, ...]:
    """The similarity box's sentences: one per non-empty line, at most ``MAX_SENTENCES``."""
    lines = [line.strip() for line in text.splitlines()]
    return tuple(line for line in lines if line)[:MAX_SENTENCES]


def compute(model, model_id: int, request: PretrainedRequest, previous: Shown | None,
            device: str = "cpu") -> Shown | Refused:
    """The traces for ``request`` of ``model`` (the tab's ``model_id`` for it) on
    ``device``; the parts of ``previous`` whose inputs are the same (same model, text,
    masks) are kept rather than computed again. The model's weights are kept for the
    whole computation (read again first, on ``device``, if the tab had released them;
    a folder changed since it was opened is refused, the views keep what they show)."""
    from models.errors import ArchScopeError

    try:
        model.to(device)
        with model.in_use():
            return _compute(model, model_id, request, previous, device)
    except ArchScopeError as exc:
        return Refused(request, str(exc))


def _compute(model, model_id: int, request: PretrainedRequest, previous: Shown | None,
             device: str) -> Shown | Refused:
    from models.errors import ArchScopeError
    from models.pretrained import neuron_view, next_tokens, sentence_attention, sentence_similarity

    r, old = request, previous
    if not isinstance(old, Shown) or old.model_id != model_id:
        old = None
    same_text = old is not None and (old.request.sentence, old.request.pair, old.request.keep) \
        == (r.sentence, r.pair, r.keep)
    try:
        model.to(device)
        if same_text and old.request.head_mask == r.head_mask:
            attention = old.attention
        else:
            attention = sentence_attention(model, r.sentence, pair=r.pair,
                                           head_mask=r.mask_array(), keep=r.keep_array())
        layers, heads = attention.weights.shape[:2]
        layer, head = min(max(r.layer, 0), layers - 1), min(max(r.head, 0), heads - 1)
        if same_text and (old.neuron.layer, old.neuron.head) == (layer, head) and \
                old.request.head_mask == r.head_mask:
            neuron = old.neuron
        else:       # the heads masked below this layer change its input
            neuron = neuron_view(model, layer, head, r.sentence, pair=r.pair,
                                 keep=r.keep_array(), head_mask=r.mask_array())
    except ArchScopeError as exc:
        return Refused(request, str(exc))
    notes = []
    similarity = None
    if attention.kind == "encoder" and len(r.sentences) >= MIN_SENTENCES:
        if old is not None and old.similarity is not None and \
                (old.request.sentences, old.request.head_mask) == (r.sentences, r.head_mask):
            similarity = old.similarity
        else:
            try:
                similarity = sentence_similarity(model, list(r.sentences),
                                                 head_mask=r.mask_array())
            except ArchScopeError as exc:
                notes.append(str(exc))
    nxt = None
    if attention.kind == "decoder":
        if old is not None and old.next is not None and same_text and \
                (old.request.temperature, old.request.top_k, old.request.top_p) == \
                (r.temperature, r.top_k, r.top_p):
            nxt = old.next
        else:
            nxt = next_tokens(model, r.sentence, temperature=r.temperature, top_k=r.top_k,
                              top_p=r.top_p, shown=SHOWN_CANDIDATES)
    approx = None
    if attention.kind == "encoder":
        approx = _approximation(model, r, old, attention, similarity, layer, head, notes)
    return Shown(request, model_name(model), model_id, attention.kind, attention, neuron,
                 similarity, nxt, tuple(notes), approx)


def _approximation(model, r: PretrainedRequest, old: Shown | None, attention, similarity,
                   layer: int, head: int, notes: list) -> ApproxComparison | None:
    """The model with the request's approximate attention against exact (the exact
    maps and similarities are those computed already); kept from ``old`` when nothing
    it depends on changed."""
    from models.errors import ArchScopeError
    from models.pretrained import approximation_comparison

    def inputs(q: PretrainedRequest) -> tuple:
        return (q.sentence, q.pair, q.keep, q.head_mask, q.sentences, q.approximation(),
                q.seed)

    c = old.approx if old is not None else None
    if c is not None and inputs(old.request) == inputs(r) and (c.layer, c.head) == (layer,
                                                                                   head):
        return c
    sentences = r.sentences if similarity is not None else ()
    kind, number = r.approximation()
    try:
        return approximation_comparison(
            model, r.sentence, sentences, kind, number, r.seed, layer, head, pair=r.pair,
            keep=r.keep_array(), head_mask=r.mask_array(), exact_weights=attention.weights,
            exact_similarity=None if similarity is None else similarity.similarity)
    except ArchScopeError as exc:
        notes.append(str(exc))
        return None


def model_name(model) -> str:
    return str(getattr(model, "name", "model"))


def generation(model, ask: PretrainedRequest, device: str = "cpu"
               ) -> Iterator[tuple[GenerationStep, ...]]:
    """Token-by-token generation of ``ask.steps`` tokens after ``ask.sentence`` on
    ``device`` as a job: every item is all the steps so far (the job runner may drop
    items between two screen updates; the last one has them all)."""
    from models.pretrained import generate

    model.to(device)
    done: list[GenerationStep] = []
    steps_of = generate(model, ask.sentence, ask.steps, temperature=ask.temperature,
                        top_k=ask.top_k, top_p=ask.top_p, seed=ask.seed)
    while True:
        with model.in_use():           # the weights kept for a step, not across a yield
            step = next(steps_of, None)
        if step is None:
            return
        done.append(step)
        yield tuple(done)


def weight_files(folder: Path) -> list[Path]:
    """The files of a model folder that hold its weights (what reading costs)."""
    files = sorted(folder.glob("*.safetensors"))
    pickled = folder / "pytorch_model.bin"
    return files or ([pickled] if pickled.is_file() else [])


def model_reader(folder: Path | None, max_parameters: int
                 ) -> Callable[[Callable | None, Callable | None], object]:
    """``read(progress, cancelled)`` for ``JobRunner.start_call``: the weight files read
    through once in chunks (the progress the bar shows, Cancel between two chunks; the
    loader then finds them in the page cache), then ``load_pretrained``."""
    from models.errors import ArchScopeError

    def read(progress: Callable | None, cancelled: Callable | None):
        from models.pretrained import bundled_folder, load_pretrained

        if folder is None and _BUNDLED:            # loaded once, by any window
            if progress is not None:
                progress(1.0)
            return _BUNDLED[0]
        source = bundled_folder() if folder is None else folder
        files = weight_files(Path(source))
        total = max(1, sum(f.stat().st_size for f in files))
        done = 0
        for path in files:
            with open(path, "rb") as fh:
                while chunk := fh.read(CHUNK):
                    done += len(chunk)
                    if cancelled is not None and cancelled():
                        raise ArchScopeError("cancelled")
                    if progress is not None:
                        progress(0.85 * done / total)
        if folder is None:
            with _BUNDLED_LOCK:
                if not _BUNDLED:
                    _BUNDLED.append(load_pretrained(None, max_parameters=max_parameters))
                model = _BUNDLED[0]
        else:
            model = load_pretrained(folder, max_parameters=max_parameters)
        if progress is not None:
            progress(1.0)
        return model

    return read

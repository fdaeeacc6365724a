"""The Transformer tab in a session file (File → Save session…, or the tab's own
"Save session…" button); its old model files (.pt) still open with File → Open….

What the tab's part of a session holds:

* every model the tab keeps that is on screen or has trained (one per architecture,
  tokenizer and task: switching task loses nothing, and neither does a file), each with
  its weights, optimizer moments, batch generator, loss and token-accuracy curves,
  held-out evaluations, and the task, model and schedule that build it again;
* the controls (``params()``): the sequence typed, padding, attention kind, layer,
  head, masks, decoding step, the forward-pass step shown, the ablation measured;
* ``data``: the seed of "Generate", the heads the head view hides, and, when the
  sequence typed cannot be read, the last one that could (what the views show).

Opening checks all of it against the models it rebuilds (a layer the model does not
have, a sequence its tokenizer cannot read, curves of the wrong shape, weights that do
not fit) before anything on screen changes; a refusal names the file and leaves the
tab as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog

from app.tabs.transformer.params import DEFAULTS
from models.transformer.options import ABLATIONS, ALPHABETS, ARCHITECTURES, KINDS, TASKS

if TYPE_CHECKING:
    from app.tabs.transformer.tab import TransformerTab

#: the longest sequence text a session may hold (the line edit's own limit)
MAX_SEQUENCE_CHARS = 32767


def session_name(key: tuple[str, str, str]) -> str:
    """How a model is named in the file: "encoder-decoder.digits.reverse"."""
    return ".".join(key)


def saved_sessions(tab: TransformerTab) -> dict[str, object]:
    current = tab.current_session()
    return {session_name(key): s for key, s in tab.sessions.items()
            if s is current or s.step}


def session_inputs(tab: TransformerTab) -> tuple[dict, dict]:
    data = {"generate_seed": tab._seed,
            "heads_shown": [bool(h) for h in tab.head_lines_view.plot.shown_heads()]}
    if tab._shown_sequence is not None and tab._shown_sequence != tab.sequence.text():
        data["shown_sequence"] = tab._shown_sequence
    return data, {}


# -- opening ------------------------------------------------------------------------------
def open_session_state(tab: TransformerTab, state, name: str) -> None:
    """Check the tab's part of a session, then show it (see the module docstring)."""
    from models.errors import SessionFileError

    def refuse(why: str):
        return SessionFileError(f"{name}: the Transformer tab's part cannot be used: {why}")

    sessions = _rebuilt_sessions(tab, state, name, refuse)
    params = dict(state.params)
    key = _check_choices(params, refuse)
    if key not in sessions:            # the model on screen had not been made
        sessions[key] = tab.new_session(key)
    session = sessions[key]
    shown = _check_controls(params, state.data, session, refuse)
    seed = state.data.get("generate_seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        raise refuse(f"the seed of Generate ({seed!r}) is not a whole number from 0 to "
                     f"{2**31 - 1}.")
    heads = _check_heads(state.data.get("heads_shown"), refuse)
    # accepted: now the tab changes (a running training stops first)
    tab.stop_jobs()
    tab.sessions = sessions            # the file's models, as the tab had them
    tab._seed = seed
    tab._shown_sequence = shown
    tab._apply_session_params(params, name)
    if heads is not None:
        tab.head_lines_view.plot.set_shown_heads(heads)
    tab.error_note.setText("")
    tab._redraw_training()
    tab.after_session_opened()


def _rebuilt_sessions(tab: TransformerTab, state, name: str, refuse) -> dict:
    """The file's models, rebuilt on the tab's device (nothing of the tab changes)."""
    from models.transformer import session_from_state, session_key

    metas = state.data.get("sessions", {})
    if not isinstance(metas, dict):
        raise refuse("its models are malformed.")
    sessions = {}
    for sname, meta in metas.items():
        if not isinstance(meta, dict):
            raise refuse(f"the model {sname!r} is malformed.")
        prefix = f"{sname}/"
        tensors = {k[len(prefix):]: v for k, v in state.tensors.items()
                   if k.startswith(prefix)}
        session = session_from_state(tensors, meta, name, device=tab.ctx.device())
        key = session_key(session)
        if sname != session_name(key):
            raise refuse(f"the model {sname!r} is a {session_name(key)} model.")
        sessions[key] = session
    return sessions


def _check_choices(params: dict, refuse) -> tuple[str, str, str]:

    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise refuse(f"unknown setting {', '.join(map(str, unknown))}.")
    for field, values in (("architecture", ARCHITECTURES), ("tokenizer", ALPHABETS),
                          ("task", TASKS), ("kind", KINDS), ("ablation", ABLATIONS)):
        params.setdefault(field, DEFAULTS[field])
        if params[field] not in values:
            raise refuse(f"{field} = {params[field]!r} is not one of {', '.join(values)}.")
    return params["architecture"], params["tokenizer"], params["task"]


def _whole(params: dict, field: str, lo: int, hi: int, refuse) -> None:

    value = params.setdefault(field, min(max(DEFAULTS[field], lo), hi))
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise refuse(f"{field} = {value!r} is not a whole number from {lo} to {hi} (for "
                     "this model).")


def _check_controls(params: dict, data: dict, session, refuse) -> str:
    """The controls against the model on screen; returns the sequence the views show."""
    from app.tabs.transformer.steps import STEP_BLOCKS, STEP_TITLES
    from models.transformer import kinds_of, layers_and_heads, parse_sequence

    kinds = kinds_of(session.model)
    if params["kind"] not in kinds:
        raise refuse(f"kind = {params['kind']} attention is not in a "
                     f"{session.model_config.architecture} model (it has "
                     f"{', '.join(kinds)}).")
    n_layers, heads = layers_and_heads(session.model, params["kind"])
    cfg = session.task
    _whole(params, "layer", 0, n_layers - 1, refuse)
    _whole(params, "head", 0, heads - 1, refuse)
    _whole(params, "pad_to", 1, cfg.max_len, refuse)
    _whole(params, "generated", 0, cfg.tgt_len, refuse)
    for field in ("padding", "look_ahead"):
        if not isinstance(params.setdefault(field, True), bool):
            raise refuse(f"{field} = {params[field]!r} is not true or false.")
    step = params.setdefault("step", "self.softmax")
    block, dot, sub = str(step).partition(".")
    if not isinstance(step, str) or not (step in STEP_TITLES or (
            dot and block in STEP_BLOCKS and sub in STEP_TITLES)):
        raise refuse(f"step = {step!r} is not a step of the forward pass.")
    typed = params.setdefault("sequence", "")
    shown = data.get("shown_sequence", typed)
    for text in (typed, shown):
        if not isinstance(text, str) or len(text) > MAX_SEQUENCE_CHARS:
            raise refuse(f"the sequence is not a text of at most {MAX_SEQUENCE_CHARS} "
                         "characters.")
    try:
        parse_sequence(shown, cfg)
    except Exception as exc:  # noqa: BLE001 - InvalidParameterError: said as it is
        raise refuse(f"the sequence “{shown[:80]}” cannot be read by this model: "
                     f"{exc}") from exc
    return shown


def _check_heads(shown, refuse):
    """The head view's shown heads: true/false per head (or None). A list of another
    length than the model's heads is kept for the head view's next heads of that many
    (saved before the first picture, it may be empty)."""
    import numpy as np

    from models.transformer.model import HYPERPARAMETER_LIMITS

    if shown is None:
        return None
    most = HYPERPARAMETER_LIMITS["num_heads"][1]
    if not isinstance(shown, list) or len(shown) > most or \
            not all(isinstance(h, bool) for h in shown):
        raise refuse(f"the head view's shown heads are not at most {most} values true or "
                     "false.")
    return np.array(shown, bool)


# -- saving --------------------------------------------------------------------------------
def save_dialog(tab: TransformerTab) -> None:
    """The tab's "Save session…" button: a session file of this tab, written in the
    background by the window (``TabContext.save_session``) as File → Save session… is."""
    from app.sessions import SUFFIX

    default = (f"{tab.ctx.settings.last_dir('session')}/transformer-"
               f"{'-'.join(tab.current_key())}{SUFFIX}")
    path, _ = QFileDialog.getSaveFileName(
        tab, QCoreApplication.translate("Sessions", "Save session"), default,
        QCoreApplication.translate("Sessions", "ArchScope sessions (*.archscope)"))
    if not path:
        return
    try:
        if tab.ctx.save_session is not None:
            tab.ctx.save_session(path, tab.key)
        else:
            save_session(tab, path)
    except Exception as exc:  # noqa: BLE001 - shown to the user
        tab.ctx.report_error(exc, None)


def save_session(tab: TransformerTab, path: str) -> str:
    """Save this tab as a session at ``path`` (atomically, as File → Save session…
    does; training may go on meanwhile); returns the path written."""
    from app import sessions

    written = sessions.save(path, [tab], tab.key, tab.ctx.device())
    tab.ctx.settings.set_last_dir("session", str(written))
    tab.ctx.status(QCoreApplication.translate("Sessions", "Saved the session {0}").format(
        written))
    return str(written)


def save_model(tab: TransformerTab, path: str) -> str:
    """The model file of earlier versions (.pt), which File → Open… still reads."""
    from app.export import atomic_write

    session = tab.session()
    with session.lock:
        written = atomic_write(path, session.save)
    tab.ctx.status(QCoreApplication.translate("TransformerTab", "Saved {0}").format(written))
    return str(written)

"""The graph-generation tab's views, drawn from what the tab holds: the gallery of training
and generated graphs, the MMD table as bars, and GraphRNN's loss curve with the step whose
weights sample."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication

from models.generation.options import METHODS
from models.traces.generation import GraphSet

if TYPE_CHECKING:
    from app.tabs.generation.tab import GenerationTab


#: QCoreApplication.translate, with the strings literal for the extraction tool
translate = QCoreApplication.translate
#: a gallery row with no graphs (yet)
NO_GRAPHS = GraphSet(num_nodes=np.zeros(0, np.int64), edges=np.zeros((0, 2), np.int64),
                     edge_offsets=np.zeros(1, np.int64))


def seconds_text(s: float) -> str:
    if s < 10:
        return translate("GenerationTab", "{0:.2f} s").format(s)
    return translate("GenerationTab", "{0:.0f} s").format(s)


def method_colour(method: str) -> int:
    """A method keeps its series colour in every view."""
    return METHODS.index(method)


def draw_gallery(tab: GenerationTab) -> None:
    """Training graphs on top, then one row per method compared (as in the MMD view)."""
    shown = tab.shown_comparison()
    gallery, panel = tab.gallery, tab.view("gallery").panel
    if shown is None:
        gallery.set_rows([], [], [], 0)
        gallery.set_hint(translate("GenerationTab", "Making the graphs…"))
        panel.set_readout("")
        return
    labels = tab.row_labels(shown)
    names = [translate("GenerationTab", "training"), *[labels[m] for m in shown.methods]]
    sets = [shown.training, *shown.samples]
    colours = [None, *[method_colour(m) for m in shown.methods]]
    if "graphrnn" in tab.selected_methods() and "graphrnn" not in shown.methods:
        # GraphRNN's row, empty until Compare samples it: the thumbnails keep their size
        # (a row added by Compare shrank them all and left a strip beside them)
        names.insert(1, labels["graphrnn"])         # the read-out: "press Compare"
        sets.insert(1, NO_GRAPHS)
        colours.insert(1, method_colour("graphrnn"))
    columns = tab.show_form.values()["shown"]
    gallery.set_hint("")
    gallery.set_rows(names, sets, colours, columns)
    where = tab.family_label()
    readout = translate(
        "GenerationTab", "{0}: {1} training graphs, {2} held out · first {3} of each row; "
        "seed {4}").format(where, shown.train_count, shown.held_out, columns, shown.seed)
    if "graphrnn" in tab.selected_methods() and "graphrnn" not in shown.methods:
        readout += translate("GenerationTab", " · GraphRNN: press Compare")
    panel.set_readout(readout)


def draw_mmd(tab: GenerationTab) -> None:
    """MMD² of degree and clustering histograms and of orbit counts per method, and the
    training graphs' own distance to the held-out graphs (the level a perfect generator
    reaches)."""
    shown = tab.shown_comparison()
    bars, panel = tab.mmd_bars, tab.view("mmd").panel
    titles = [translate("GenerationTab", "degree"), translate("GenerationTab", "clustering"),
              translate("GenerationTab", "orbits")]
    if shown is None:
        bars.set_table([], np.zeros((0, len(titles))), titles, [])
        bars.set_hint(translate("GenerationTab", "Making the graphs…"))
        panel.set_readout("")
        return
    labels = tab.row_labels(shown)
    # the names only (no wall times): with three statistics side by side, longer names
    # pushed the orbit column past the view's edge at 1280 × 800
    names = [labels[m] for m in shown.methods]
    names.append(translate("GenerationTab", "training graphs"))
    values = np.concatenate([shown.mmd, shown.reference_mmd[None]])
    colours = [method_colour(m) for m in shown.methods] + [None]
    bars.set_hint("")
    bars.set_table(names, values, titles, colours)
    times = ", ".join(f"{labels[m]} {seconds_text(float(s))}"
                      for m, s in zip(shown.methods, shown.seconds, strict=True))
    text = translate(
        "GenerationTab", "{0} held-out graphs, {1} samples per method; the last row is the "
        "training graphs themselves (the floor) · time to fit and sample: {2}").format(
        shown.held_out, tab.samples, times)
    if not np.isfinite(values[:, 2]).all():
        text += translate("GenerationTab", " · orbits not counted where “—” (graphs too "
                          "dense, or a file saved before they were)")
    panel.set_readout(text)


def draw_loss(tab: GenerationTab) -> None:
    """GraphRNN's loss per step and the loss of knowing only the density, H(p); a dashed
    line marks the step whose weights sample (GraphRNN's self-scoring keeps the best)."""
    plot, panel = tab.loss_plot, tab.view("loss").panel
    data = tab.result.data if tab.result is not None else None
    session = tab.current_session()
    losses = np.asarray(session.losses if session is not None else [], np.float32)
    n = len(losses)
    reference = data.entropy if data is not None else float("nan")
    ref_name = translate("GenerationTab", "density only: H(p) = {0:.3f}").format(reference)
    plot.set_hint("")
    if n == 0:
        # before training, the level to get under is all there is: drawn as the curve,
        # over the steps a Train press runs
        plot.set_reference(float("nan"), "")
        steps = float(tab.train_form.values()["steps"])
        plot.set_curves([np.asarray([0.0, steps], np.float32)],
                        [np.full(2, reference, np.float32)], [ref_name], colours=[7])
        plot.set_markers([], [])
        panel.set_readout(translate(
            "GenerationTab", "{0}: a model that knows only the density. Untrained: press "
            "“Train” to train GraphRNN (loss: binary cross-entropy of each adjacency "
            "entry).").format(ref_name) if data is not None
                          else "")
        return
    plot.set_reference(reference, ref_name)
    steps = np.arange(1, n + 1, dtype=np.float32)
    plot.set_curves([steps], [losses], [translate("GenerationTab", "GraphRNN loss")],
                    colours=[0])
    best = session.best_shown_step()
    plot.set_markers([best], [translate("GenerationTab", "weights used: step {0}").format(best)])
    panel.set_readout(translate(
        "GenerationTab", "step {0} · loss {1:.4f} · the samples use the weights of step "
        "{2}, the best of GraphRNN's own scoring every {3} steps").format(
                             n, float(losses[-1]), best, session.select_every))

"""The pretrained-model tab's widgets: seven boxes of controls and ten views.

Each function builds one part on the tab and wires it to the tab's methods; texts are
set by ``PretrainedTab.retranslate``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
)

from app.tabs.pretrained.params import MAX_TEXT, RANGES
from app.tabs.pretrained.views import (
    ApproxSimilarityView,
    ApproxView,
    GenerationView,
    HeadLinesView,
    HeadsView,
    NeuronView,
    NextTokenView,
    OverviewView,
    SimilarityView,
    StatsView,
)
from viz.mask_toggles import HeadMaskGrid, TokenToggles
from viz.theme import error_style, muted_style

if TYPE_CHECKING:
    from app.tabs.pretrained.tab import PretrainedTab



def _label(wrap: bool = True, style: str = "") -> QLabel:
    label = QLabel()
    label.setWordWrap(wrap)
    if style:
        label.setStyleSheet(style)
    return label


def _limits(key: str) -> tuple:
    """A spin box's (minimum, maximum) from the request's ranges (an int's as ints)."""
    r = RANGES[key]
    whole = isinstance(r.default, int)
    return (int(r.minimum), int(r.maximum)) if whole else (r.minimum, r.maximum)


def build_controls(tab: PretrainedTab) -> None:
    lay = tab.controls_layout
    lay.setSpacing(4)
    for box in (_model_box(tab), _input_box(tab), _view_box(tab), _mask_box(tab),
                _similarity_box(tab), _approx_box(tab), _decoder_box(tab)):
        box.layout().setContentsMargins(6, 2, 6, 4)
        box.layout().setSpacing(3)
        lay.addWidget(box)
    lay.addStretch(1)
    tab.left.setSizes([660, 230])


def _model_box(tab: PretrainedTab) -> QGroupBox:
    tab.box_model = QGroupBox()
    col = QVBoxLayout(tab.box_model)
    tab.model_label = _label()
    tab.model_label.setObjectName("ModelLabel")
    tab.model_note = _label(style=error_style())
    tab.model_note.setObjectName("ModelNote")
    # the install command can be selected and copied
    tab.model_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    tab.model_note.setVisible(False)
    tab.open_button = QPushButton()
    tab.open_button.setObjectName("OpenModelButton")
    tab.open_button.clicked.connect(tab.open_folder_dialog)
    tab.bundled_button = QPushButton()
    tab.bundled_button.setObjectName("BundledModelButton")
    tab.bundled_button.clicked.connect(tab.load_bundled)
    row = QHBoxLayout()
    row.addWidget(tab.open_button, 1)
    row.addWidget(tab.bundled_button, 1)
    col.addWidget(tab.model_label)
    col.addLayout(row)
    col.addWidget(tab.model_note)
    return tab.box_model


def _input_box(tab: PretrainedTab) -> QGroupBox:
    """The sentence, BERT's optional second sentence, Run, and the token toggles."""
    tab.box_input = QGroupBox()
    form = QFormLayout(tab.box_input)
    tab.sentence = QLineEdit()
    tab.sentence.setObjectName("SentenceEdit")
    tab.sentence.setMaxLength(MAX_TEXT)
    tab.pair = QLineEdit()
    tab.pair.setObjectName("PairEdit")
    tab.pair.setMaxLength(MAX_TEXT)
    tab.run_button = QPushButton()
    tab.run_button.setObjectName("RunButton")
    tab.sentence_label, tab.pair_label = QLabel(), QLabel()
    form.addRow(tab.sentence_label, tab.sentence)
    pair_row = QHBoxLayout()
    pair_row.addWidget(tab.pair, 1)
    pair_row.addWidget(tab.run_button)
    form.addRow(tab.pair_label, pair_row)
    tab.tokens_label = _label(style=muted_style())
    form.addRow(tab.tokens_label)
    tab.token_toggles = TokenToggles()
    tab.token_toggles.setObjectName("TokenToggles")
    form.addRow(tab.token_toggles)
    tab.input_note = _label(style=error_style())
    tab.input_note.setVisible(False)
    form.addRow(tab.input_note)
    for edit in (tab.sentence, tab.pair):
        edit.returnPressed.connect(tab.run)
    tab.run_button.clicked.connect(tab.run)
    tab.token_toggles.changed.connect(tab.schedule_update)
    return tab.box_input


def _view_box(tab: PretrainedTab) -> QGroupBox:
    """Layer and head shown, and the neuron view's query token."""
    tab.box_view = QGroupBox()
    form = QFormLayout(tab.box_view)
    tab.layer, tab.head = QSpinBox(), QSpinBox()
    tab.layer.setObjectName("LayerSpin")
    tab.head.setObjectName("HeadSpin")
    tab.layer_label, tab.head_label, tab.query_label = QLabel(), QLabel(), QLabel()
    row = QHBoxLayout()
    row.addWidget(tab.layer, 1)
    row.addSpacing(8)
    row.addWidget(tab.head_label)
    row.addWidget(tab.head, 1)
    form.addRow(tab.layer_label, row)
    tab.query = QComboBox()
    tab.query.setObjectName("QueryCombo")
    tab.query.setProperty("archscope_data", True)       # the text's own tokens
    tab.query.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    tab.query.setMinimumContentsLength(10)
    form.addRow(tab.query_label, tab.query)
    for spin in (tab.layer, tab.head):
        spin.valueChanged.connect(tab.schedule_update)
    tab.query.currentIndexChanged.connect(tab._query_chosen)
    return tab.box_view


def _mask_box(tab: PretrainedTab) -> QGroupBox:
    tab.box_masks = QGroupBox()
    col = QVBoxLayout(tab.box_masks)
    tab.mask_grid = HeadMaskGrid()
    tab.mask_grid.setObjectName("HeadMaskGrid")
    tab.mask_grid.changed.connect(tab.schedule_update)
    tab.mask_hint = _label(style=muted_style())
    col.addWidget(tab.mask_grid)
    col.addWidget(tab.mask_hint)
    return tab.box_masks


def _similarity_box(tab: PretrainedTab) -> QGroupBox:
    tab.box_similarity = QGroupBox()
    col = QVBoxLayout(tab.box_similarity)
    tab.sentences = QPlainTextEdit()
    tab.sentences.setObjectName("SentencesEdit")
    tab.sentences.setTabChangesFocus(True)
    tab.sentences.setMaximumHeight(96)
    tab.sentences_hint = _label(style=muted_style())
    col.addWidget(tab.sentences)
    col.addWidget(tab.sentences_hint)
    # recomputed once typing pauses (each key press would be a computation)
    tab._sentences_timer = QTimer(tab)
    tab._sentences_timer.setSingleShot(True)
    tab._sentences_timer.setInterval(600)
    tab._sentences_timer.timeout.connect(tab.schedule_update)
    tab.sentences.textChanged.connect(tab._sentences_timer.start)
    return tab.box_similarity


#: the approximations the combo offers, in its order (its items' data)
APPROX_CHOICES = ("exact", "performer", "linformer", "sparse")


def _approx_box(tab: PretrainedTab) -> QGroupBox:
    """The attention inside the model for the approximation view: exact, Performer (m
    random features), Linformer (k pooled rows) or a sparse local window (w); only the
    chosen one's number is enabled."""
    tab.box_approx = QGroupBox()
    form = QFormLayout(tab.box_approx)
    tab.approx_combo = QComboBox()
    tab.approx_combo.setObjectName("ApproxCombo")
    for kind in APPROX_CHOICES:
        tab.approx_combo.addItem(kind, kind)
    tab.approx_label = QLabel()
    form.addRow(tab.approx_label, tab.approx_combo)
    row = QHBoxLayout()
    for key, name in (("features", "m"), ("projected", "k"), ("window", "w")):
        spin = QSpinBox()
        spin.setObjectName(f"Approx{key.title()}Spin")
        spin.setRange(*_limits(key))
        spin.setValue(int(RANGES[key].default))
        spin.valueChanged.connect(tab.schedule_update)
        setattr(tab, f"approx_{key}", spin)
        row.addWidget(QLabel(name))
        row.addWidget(spin, 1)
    form.addRow(row)
    tab.approx_combo.currentIndexChanged.connect(lambda _i: enable_approx(tab))
    tab.approx_combo.currentIndexChanged.connect(tab.schedule_update)
    enable_approx(tab)
    return tab.box_approx


def enable_approx(tab: PretrainedTab) -> None:
    kind = tab.approx_combo.currentData()
    for key, owner in (("features", "performer"), ("projected", "linformer"),
                       ("window", "sparse")):
        getattr(tab, f"approx_{key}").setEnabled(kind == owner)


def _decoder_box(tab: PretrainedTab) -> QGroupBox:
    """Temperature, top-k, top-p; generation's length, seed and Generate / Stop."""
    tab.box_decoder = QGroupBox()
    form = QFormLayout(tab.box_decoder)
    tab.temperature = QDoubleSpinBox()
    tab.temperature.setObjectName("TemperatureSpin")
    tab.temperature.setRange(*_limits("temperature"))
    tab.temperature.setSingleStep(0.1)
    tab.temperature.setDecimals(2)
    tab.top_k = QSpinBox()
    tab.top_k.setObjectName("TopKSpin")
    tab.top_k.setRange(*_limits("top_k"))
    tab.top_p = QDoubleSpinBox()
    tab.top_p.setObjectName("TopPSpin")
    tab.top_p.setRange(*_limits("top_p"))
    tab.top_p.setSingleStep(0.05)
    tab.top_p.setDecimals(2)
    tab.steps = QSpinBox()
    tab.steps.setObjectName("StepsSpin")
    tab.steps.setRange(*_limits("steps"))
    tab.seed = QSpinBox()
    tab.seed.setRange(*_limits("seed"))
    tab.generate_button = QPushButton()
    tab.generate_button.setObjectName("GenerateButton")
    tab.generate_button.clicked.connect(tab.toggle_generation)
    tab.temperature_label, tab.top_k_label, tab.top_p_label = QLabel(), QLabel(), QLabel()
    tab.steps_label, tab.seed_label = QLabel(), QLabel()
    form.addRow(tab.temperature_label, tab.temperature)
    sampling = QHBoxLayout()
    sampling.addWidget(tab.top_k, 1)
    sampling.addSpacing(8)
    sampling.addWidget(tab.top_p_label)
    sampling.addWidget(tab.top_p, 1)
    form.addRow(tab.top_k_label, sampling)
    gen = QHBoxLayout()
    gen.addWidget(tab.steps, 1)
    gen.addSpacing(8)
    gen.addWidget(tab.seed_label)
    gen.addWidget(tab.seed, 1)
    form.addRow(tab.steps_label, gen)
    form.addRow(tab.generate_button)
    tab.generated_label = _label()
    tab.generated_label.setObjectName("GeneratedText")
    form.addRow(tab.generated_label)
    tab.decoder_note = _label(style=muted_style())
    form.addRow(tab.decoder_note)
    for spin in (tab.temperature, tab.top_k, tab.top_p, tab.seed):
        spin.valueChanged.connect(tab.schedule_update)
    return tab.box_decoder


#: which views a model shows, and where: (key, row, column[, columns]); two rows, and an encoder's
#: approximation views in a fourth column where four columns of ``COLUMN_WIDTH`` fit, else
#: in a third row (1280 × 800: four columns cut the neuron view's softmax column)
ENCODER_VIEWS = (("heads", 0, 0), ("head_view", 0, 1), ("overview", 0, 2),
                 ("neuron", 1, 0), ("stats", 1, 1), ("similarity", 1, 2),
                 ("approx", 0, 3), ("approx_similarity", 1, 3))
#: the least width of a column where four are laid out (the neuron view's q, k, scores
#: and softmax columns fit)
COLUMN_WIDTH = 255
ENCODER_NARROW = ENCODER_VIEWS[:6] + (("approx", 2, 0), ("approx_similarity", 2, 1))
DECODER_NARROW = (("heads", 0, 0), ("head_view", 0, 1), ("overview", 0, 2),
                  ("neuron", 1, 0), ("next", 1, 1), ("generation", 1, 2))
#: a decoder where four columns fit: the same four columns as an encoder's (a model
#: opened of the other kind resizes no view already shown), generation over three
DECODER_VIEWS = (("heads", 0, 0), ("head_view", 0, 1), ("overview", 0, 2),
                 ("neuron", 1, 0), ("next", 0, 3), ("generation", 1, 1, 3))


class _Rearrange(QObject):
    """Lays the views out again when the grid's visible width crosses four columns."""

    def __init__(self, tab: PretrainedTab) -> None:
        super().__init__(tab)
        self.tab = tab

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's API
        if event.type() == QEvent.Type.Resize:
            arrange_views(self.tab, self.tab.arranged[0], event.size().width())
        return False


def build_views(tab: PretrainedTab) -> None:
    """Every view, made once; ``arrange_views`` puts those of the model's kind on the
    grid (an encoder's sentence similarities and Clark et al. statistics; a decoder's
    next-token bars and generation), and only those are the tab's ``views`` (exported,
    listed in Export figure…). ``tab_views`` holds the view classes by key; their plots
    keep the tab's names (``heads_view``, ``head_lines``, …) that the tests poke."""
    made = (HeadsView(tab), HeadLinesView(tab), OverviewView(tab), NeuronView(tab),
            StatsView(tab), SimilarityView(tab), NextTokenView(tab), GenerationView(tab),
            ApproxView(tab), ApproxSimilarityView(tab))
    tab.tab_views = {view.key: view for view in made}
    tab.all_views = {}
    for view in made:
        view.status.connect(tab.ctx.status)
        panel = view.panel
        panel.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        panel.graphics.viewport().installEventFilter(tab)
        panel.graphics.viewport().setProperty("archscope_view", view.key)
        panel.setVisible(False)
        tab.all_views[view.key] = view.as_view()
    v = tab.tab_views
    tab.heads_view, tab.head_lines = v["heads"].plot, v["head_view"].plot
    tab.overview_view, tab.neuron_view = v["overview"].plot, v["neuron"].plot
    tab.stats_view, tab.similarity_view = v["stats"].plot, v["similarity"].plot
    tab.next_view, tab.generation_view = v["next"].plot, v["generation"].plot
    tab.approx_view, tab.approx_similarity_view = v["approx"].plot, v["approx_similarity"].plot
    tab.grid.setRowStretch(0, 1)
    tab.grid.setRowStretch(1, 1)
    for col in range(3):
        tab.grid.setColumnStretch(col, 1)
    tab.arranged = ("", None)
    arrange_views(tab, "encoder")
    tab.grid_scroll.viewport().installEventFilter(_Rearrange(tab))
    v["overview"].headChosen.connect(tab.pick_head)
    v["heads"].headChosen.connect(tab.head.setValue)


def arrange_views(tab: PretrainedTab, kind: str, width: int | None = None) -> None:
    """The views of a model of ``kind`` ("encoder" or "decoder") on the grid, for the
    grid's visible ``width`` (None: as it is now)."""
    if width is None:
        width = tab.grid_scroll.viewport().width()
    m = tab.grid.contentsMargins()
    wide = width >= 4 * COLUMN_WIDTH + 3 * tab.grid.horizontalSpacing() + m.left() + m.right()
    layout = ((DECODER_VIEWS if wide else DECODER_NARROW) if kind == "decoder" else
              ENCODER_VIEWS if wide else ENCODER_NARROW)
    if tab.arranged == (kind, layout):
        return
    # a view staying in its cell is left alone (moving every panel cost ~100 ms)
    before = {place[0]: place for place in tab.arranged[1] or ()}
    after = {place[0]: place for place in layout}
    tab.arranged = (kind, layout)
    for view in tab.views:
        if before.get(view.key) != after.get(view.key):
            tab.grid.removeWidget(view.panel)
            view.panel.setVisible(False)
    tab.views = []
    for key, row, col, *span in layout:
        view = tab.all_views[key]
        tab.views.append(view)
        if before.get(key) != after[key]:
            tab.grid.addWidget(view.panel, row, col, 1, span[0] if span else 1)
            view.panel.setVisible(True)
    tab.grid.setColumnStretch(3, 1 if wide else 0)
    tab.grid.setRowStretch(2, 1 if layout is ENCODER_NARROW else 0)
    if tab.active_view not in {place[0] for place in layout}:
        tab.active_view = layout[0][0]

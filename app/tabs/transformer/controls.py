"""The Transformer tab's widgets: the four boxes of controls (the views are classes of
their own, in ``views``).

Each function builds one part on the tab and wires it to the tab's methods; texts are set
by ``TransformerTab.retranslate``; the spin boxes start from the request's ranges.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStackedLayout,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from app.tabs.transformer.params import RANGES
from models.transformer.options import ALPHABETS, ARCHITECTURES
from viz.text import FitCombo
from viz.theme import error_style, muted_style

if TYPE_CHECKING:
    from app.tabs.transformer.tab import TransformerTab


def build_controls(tab: TransformerTab, step: str) -> None:
    """The controls column, top to bottom; ``step`` is the step-through's first step."""
    lay = tab.controls_layout
    lay.setSpacing(4)
    for box in (_model_box(tab), _input_box(tab), _attention_box(tab), _steps_box(tab)):
        box.layout().setContentsMargins(6, 2, 6, 4)     # compact: all fits without scrolling
        box.layout().setSpacing(3)
        lay.addWidget(box)
    # the controls before the tour: every control shows at 1500 × 940 without scrolling
    tab.left.setSizes([640, 250])
    tab._step_key = step
    tab.step_combo.activated.connect(tab._step_chosen)
    lay.addStretch(1)
    for combo in (tab.task, tab.kind, tab.architecture, tab.tokenizer):
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(12)

    tab.task.currentIndexChanged.connect(tab._task_changed)
    tab.architecture.currentIndexChanged.connect(tab._task_changed)
    tab.tokenizer.currentIndexChanged.connect(tab._tokenizer_changed)
    tab.sequence.editingFinished.connect(tab.schedule_update)
    for w in (tab.pad_to, tab.layer, tab.head, tab.generated):
        w.valueChanged.connect(tab.schedule_update)
    tab.kind.currentIndexChanged.connect(tab._kind_changed)
    tab.padding.toggled.connect(tab.schedule_update)
    tab.look_ahead.toggled.connect(tab.schedule_update)
    tab.course.toggled.connect(tab.schedule_update)


def _model_box(tab: TransformerTab) -> QGroupBox:
    """Architecture, tokens and task; Train (the base's button) and Save; the status line
    and the error note of the training base."""
    tab.box_model = QGroupBox()
    col = QVBoxLayout(tab.box_model)
    tab.architecture = QComboBox()
    tab.architecture.setObjectName("ArchitectureCombo")
    tab.architecture.addItems([""] * len(ARCHITECTURES))
    tab.tokenizer = QComboBox()
    tab.tokenizer.setObjectName("TokenizerCombo")
    tab.tokenizer.addItems([""] * len(ALPHABETS))
    tab.task = QComboBox()
    tab.task.addItems(["", "", "", ""])
    tab.architecture_label, tab.tokenizer_label, tab.task_label = (QLabel(), QLabel(),
                                                                   QLabel())
    model_form = QFormLayout()
    model_form.addRow(tab.architecture_label, tab.architecture)
    model_form.addRow(tab.tokenizer_label, tab.tokenizer)
    model_form.addRow(tab.task_label, tab.task)
    col.addLayout(model_form)
    tab.save_button = QPushButton()
    tab.save_button.clicked.connect(tab.save_dialog)
    buttons = QHBoxLayout()
    buttons.addWidget(tab.train_button, 1)
    buttons.addWidget(tab.save_button)
    col.addLayout(buttons)
    col.addWidget(tab.status)
    col.addWidget(tab.error_note)
    return tab.box_model


def _input_box(tab: TransformerTab) -> QGroupBox:
    """The sequence (typed or generated), the padding, the decoding step, the output."""
    tab.box_input = QGroupBox()
    form = QFormLayout(tab.box_input)
    tab.sequence = QLineEdit()
    tab.sequence.setObjectName("SequenceEdit")
    tab.generate_button = QPushButton()
    tab.generate_button.clicked.connect(tab.generate)
    seq_row = QHBoxLayout()
    seq_row.addWidget(tab.sequence, 1)
    seq_row.addWidget(tab.generate_button)
    tab.pad_to = _spin("pad_to")
    tab.sequence_label, tab.pad_label = QLabel(), QLabel()
    form.addRow(tab.sequence_label, seq_row)
    form.addRow(tab.pad_label, tab.pad_to)
    tab.generated = _spin("generated")          # 0 = the whole output at once
    tab.generated.setObjectName("GeneratedSpin")
    tab.next_token_button = QPushButton()
    tab.next_token_button.setObjectName("NextTokenButton")
    tab.next_token_button.clicked.connect(tab.next_token)
    gen_row = QHBoxLayout()
    gen_row.addWidget(tab.generated, 1)
    gen_row.addWidget(tab.next_token_button)
    tab.generated_label = QLabel()
    form.addRow(tab.generated_label, gen_row)
    tab.output_label = QLabel()
    tab.output_label.setWordWrap(True)
    tab.output_label.setTextFormat(Qt.TextFormat.RichText)
    form.addRow(tab.output_label)
    tab.token_key = QLabel()
    tab.token_key.setStyleSheet(muted_style())
    form.addRow(tab.token_key)
    tab.input_note = QLabel()
    tab.input_note.setWordWrap(True)
    tab.input_note.setStyleSheet(error_style())
    tab.input_note.setVisible(False)     # shown when it has something to say
    form.addRow(tab.input_note)
    return tab.box_input


def _attention_box(tab: TransformerTab) -> QGroupBox:
    """Attention kind, layer, head and the two mask switches."""
    tab.box_attn = QGroupBox()
    form = QFormLayout(tab.box_attn)
    tab.kind = QComboBox()
    tab.kind.addItems(["", "", ""])
    tab.layer = _spin("layer")
    tab.head = _spin("head")
    tab.padding = QCheckBox()
    tab.look_ahead = QCheckBox()
    tab.kind_label, tab.layer_label, tab.head_label = QLabel(), QLabel(), QLabel()
    form.addRow(tab.kind_label, tab.kind)
    layer_row = QHBoxLayout()        # layer and head on one line
    layer_row.addWidget(tab.layer, 1)
    layer_row.addSpacing(8)
    layer_row.addWidget(tab.head_label)
    layer_row.addWidget(tab.head, 1)
    form.addRow(tab.layer_label, layer_row)
    masks = QHBoxLayout()
    masks.addWidget(tab.padding)
    masks.addWidget(tab.look_ahead)
    masks.addStretch(1)
    form.addRow(masks)
    # the chapter's code on the same weights: its -1e9 fill, its decoder mask, its SDPA call
    tab.course = QCheckBox()
    tab.course.setObjectName("CourseCheck")
    form.addRow(tab.course)
    tab.mask_note = QLabel()
    tab.mask_note.setWordWrap(True)
    tab.mask_note.setVisible(False)      # shown when it has something to say
    form.addRow(tab.mask_note)
    return tab.box_attn


def _steps_box(tab: TransformerTab) -> QGroupBox:
    """The step-through's ◀ step ▶ row and its note."""
    tab.box_steps = QGroupBox()
    col = QVBoxLayout(tab.box_steps)
    tab.step_combo = FitCombo()     # step names are long: elided, whole on hover
    tab.step_combo.setObjectName("StepCombo")
    tab.step_combo.setSizeAdjustPolicy(
        QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    tab.step_combo.setMinimumContentsLength(16)
    tab.step_combo.setMaxVisibleItems(40)
    tab.prev_step, tab.next_step = QPushButton("◀"), QPushButton("▶")
    for button, delta in ((tab.prev_step, -1), (tab.next_step, 1)):
        button.setFixedWidth(34)
        button.clicked.connect(partial(tab.move_step, delta))
    row = QHBoxLayout()
    row.addWidget(tab.prev_step)
    row.addWidget(tab.step_combo, 1)
    row.addWidget(tab.next_step)
    col.addLayout(row)
    tab.step_note = QLabel()
    tab.step_note.setWordWrap(True)
    tab.step_note.setStyleSheet(muted_style())
    col.addWidget(tab.step_note)
    return tab.box_steps


def _spin(key: str) -> QSpinBox:
    """A spin box over the request's limits of ``key`` (narrowed to the model shown)."""
    box = QSpinBox()
    box.setRange(int(RANGES[key].minimum), int(RANGES[key].maximum))
    return box



def page_bottom_row(tab: TransformerTab) -> None:
    """The grid's lower row holds three pages: the step-by-step views and the training
    curves (page 0, as before), the ablations (page 1, the row's whole width) and the
    size study (page 2: the variant's form beside its view). The
    tab bar that turns them (``tab.bottom_tabs``) sits in the job bar's row, where it
    takes no height from the views. Both pages are laid out (``StackAll``: the page in
    front is raised over the other, opaque), so every view keeps its size for an export
    while another page is shown; a tour step that highlights a view brings its page to
    the front (``TransformerTab.highlight``)."""
    host = QWidget()
    tab.bottom_pages = QStackedLayout(host)
    tab.bottom_pages.setStackingMode(QStackedLayout.StackingMode.StackAll)
    steps = QWidget()
    row = QGridLayout(steps)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(tab.grid.spacing())
    for col, (view, stretch) in enumerate(((tab.head_steps_view, 4), (tab.forward_view, 3),
                                           (tab.training_view, 3))):
        tab.grid.removeWidget(view.panel)
        row.addWidget(view.panel, 0, col)
        row.setColumnStretch(col, stretch)       # as the row above: the columns align
    ablations = QWidget()
    col = QVBoxLayout(ablations)
    col.setContentsMargins(0, 0, 0, 0)
    tab.grid.removeWidget(tab.ablation_view.panel)
    col.addWidget(tab.ablation_view.panel)
    sizes = QWidget()                 # the variant's form beside the study's view
    row = QHBoxLayout(sizes)
    row.setContentsMargins(0, 0, 0, 0)
    tab.grid.removeWidget(tab.sizes.view.panel)
    # the form as wide as its fields need: the rest of the row goes to the plots
    tab.sizes.form.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
    row.addWidget(tab.sizes.form)
    row.addWidget(tab.sizes.view.panel, 1)
    for page in (steps, ablations, sizes):
        page.setAutoFillBackground(True)         # the page behind does not show through
        tab.bottom_pages.addWidget(page)
    host.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
    tab.grid.addWidget(host, 1, 0, 1, 3)
    tab.bottom_tabs = QTabBar()
    tab.bottom_tabs.setObjectName("BottomPages")
    tab.bottom_tabs.setDrawBase(False)
    tab.bottom_tabs.setExpanding(False)
    for _ in range(3):
        tab.bottom_tabs.addTab("")
    tab.bottom_tabs.currentChanged.connect(tab.bottom_pages.setCurrentIndex)
    tab.layout().itemAt(1).layout().insertWidget(0, tab.bottom_tabs)

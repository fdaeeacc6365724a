"""Traces: the frozen, torch-free dataclasses passed from ``models/`` to ``viz/``.

Every array is a C-contiguous numpy array (float32 unless stated). This package
imports numpy only; ``viz/`` may import it (or its topic modules) for type hints and
field names. One module per topic over one freezing base (``base.trace``).
"""

from models.traces.base import Progress, freeze_arrays, trace
from models.traces.community import CommunityResult
from models.traces.efficient import (
    ApproxTrace,
    ChunkedTrace,
    ChunkMemoryTrace,
    ConventionTrace,
    CostTheory,
    CostTrace,
    EfficientTrace,
    MaskTrace,
)
from models.traces.explain import NodeExplanation
from models.traces.flows import FlowCourse, FlowDensity, FlowResult, FlowTrace
from models.traces.generation import GenerationData, GenerationTrace, GenerationView, GraphSet
from models.traces.graphs import (
    BatchTrace,
    DepthStudy,
    EdgeValues,
    GraphClassTrace,
    GraphResult,
    LinkTrace,
    MessageTrace,
    ModelComparison,
    NodeTrainTrace,
    SampleTrace,
)
from models.traces.meta import (
    AdaptationTrace,
    MetaEvalTrace,
    MetaHistory,
    MetaResult,
    ProtoTrace,
    SineTask,
)
from models.traces.ode import (
    AdjointComparison,
    ClassifierTrace,
    CNFTrace,
    FieldFrames,
    ODEResult,
    SolverSteps,
    SpiralTrace,
    UserPaths,
    VectorField,
)
from models.traces.positional import OffsetFitTrace, PEGrid
from models.traces.pretrained import (
    ApproxComparison,
    GenerationStep,
    NeuronView,
    NextTokens,
    SentenceAttention,
    SentenceSimilarity,
)
from models.traces.transformer import (
    AblationTrace,
    AttentionMaps,
    AttentionPanels,
    CourseAttention,
    ForwardStep,
    ForwardSteps,
    SizeStudy,
    TransformerTrace,
)

__all__ = [
    "Progress", "freeze_arrays", "trace", "PEGrid", "OffsetFitTrace", "AblationTrace", "SizeStudy", "AttentionMaps",
    "AttentionPanels", "CourseAttention", "TransformerTrace", "ForwardStep", "ForwardSteps",
    "MaskTrace",
    "ApproxTrace", "ChunkedTrace", "ChunkMemoryTrace", "ConventionTrace", "CostTrace", "FlowTrace", "FlowDensity", "FlowCourse",
    "FlowResult", "EdgeValues",
    "SampleTrace", "MessageTrace", "NodeTrainTrace", "BatchTrace", "GraphClassTrace",
    "LinkTrace", "ModelComparison", "DepthStudy", "GraphResult", "VectorField", "SolverSteps",
    "SpiralTrace", "ClassifierTrace", "CNFTrace",
    "AdjointComparison", "FieldFrames", "UserPaths", "ODEResult",
    "MetaHistory", "AdaptationTrace", "MetaEvalTrace", "ProtoTrace",
    "SineTask", "MetaResult",
    "CostTheory", "EfficientTrace", "CommunityResult",
    "NodeExplanation",
    "SentenceAttention", "NeuronView", "SentenceSimilarity", "NextTokens", "GenerationStep",
    "ApproxComparison",
    "GraphSet", "GenerationTrace", "GenerationData", "GenerationView",
]

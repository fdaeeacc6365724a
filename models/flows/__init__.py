"""Normalizing flows (RealNVP, NICE, MAF, IAF) on 2D densities: layers, the flow, the toy
densities, the training session and the tab's probes; ``options`` is torch-free."""

from models.face import lazy_face

__getattr__, __dir__, __all__ = lazy_face(__name__, {
    "FLOW_KINDS": "options",
    "DENSITIES": "options",
    "FlowLayer": "layers",
    "CouplingLayer": "layers",
    "MaskedLinear": "layers",
    "MADE": "layers",
    "MAFLayer": "layers",
    "IAFLayer": "layers",
    "ActNorm": "layers",
    "Permute": "layers",
    "LOG_SCALE_BOUND": "layers",
    "soft_clip": "layers",
    "Flow": "flow",
    "build_realnvp": "flow",
    "build_nice": "flow",
    "build_maf": "flow",
    "build_iaf": "flow",
    "build_flow": "flow",
    "grid_lines": "flow",
    "density_grid": "flow",
    "FlowSession": "session",
    "flow_result": "probe",
    "course_distribution": "course",
    "model_distribution": "course",
    "course_comparison": "course",
})

"""The graph tab's background computations for communities, each returning one frozen
trace (the community job itself is ``detect.community_job``)."""

from __future__ import annotations

from models.community import classical
from models.community.options import MAX_K
from models.community.partition import undirected_edges
from models.traces.community import LaplacianSpectrum

__all__ = ["laplacian_spectrum", "SPECTRUM_MAX_NODES"]

#: the spectrum is drawn for graphs up to this size (ARPACK on larger ones takes seconds)
SPECTRUM_MAX_NODES = 20_000


def laplacian_spectrum(doc) -> LaplacianSpectrum | None:
    """The smallest min(n, ``MAX_K`` + 1) eigenvalues of ``doc``'s normalised Laplacian
    and the eigengap's k; None for a graph without edges or over ``SPECTRUM_MAX_NODES``."""
    n = doc.num_nodes
    edges, weight = undirected_edges(doc)
    if n < 2 or not len(edges) or n > SPECTRUM_MAX_NODES:
        return None
    values, _ = classical.spectral_embedding(n, edges, weight, min(n, MAX_K + 1))
    return LaplacianSpectrum(eigenvalues=values, eigengap_k=classical.eigengap_k(values))

"""Neural ordinary differential equations: a network f(t, y) is the *velocity* of a state,
and the model's output is the state after integrating dy/dt = f(t, y) with an ODE solver.

    y(t1) = y(t0) + ∫_{t0}^{t1} f(t, y(t)) dt          (odeint)

Three settings, as in the course (Chen et al. 2018, Dupont et al. 2019, Grathwohl et al.
2019), each a session with the same training loop (``sessions``): the spiral of
torchdiffeq's ode_demo (``spiral``), a classifier with augmented dimensions
(``classify``) and a continuous normalizing flow with the exact trace (``cnf``). Solver
settings, NFE counting and ``odesolve`` are in ``solver``, f itself in ``dynamics``, the
vector field and the adjoint comparison in ``diagnostics``, the option names (torch-free)
in ``options``, and the tab's background computations in ``probe``.
"""

from models.face import lazy_face

__getattr__, __dir__, __all__ = lazy_face(__name__, {
    "SOLVERS": "options",
    "ADAPTIVE": "options",
    "TASKS": "options",
    "EVALS_PER_STEP": "options",
    "SolverConfig": "solver",
    "NFELimitExceeded": "solver",
    "odesolve": "solver",
    "solver_steps": "solver",
    "ODEFunc": "dynamics",
    "CNFDynamics": "dynamics",
    "divergence_exact": "dynamics",
    "vector_field": "diagnostics",
    "SPIRAL_A": "spiral",
    "true_spiral": "spiral",
    "trivial_spiral_errors": "spiral",
    "l1_error": "spiral",
    "make_classification": "classify",
    "ODESession": "sessions",
    "SpiralSession": "spiral",
    "ClassifierSession": "classify",
    "CNFSession": "cnf",
})

"""Normalizing flows on this CPU: the NLL RealNVP reaches on two moons and on 8 gaussians
after a fixed budget of steps (against each density's entropy, the lowest NLL possible),
with wall time and steps per second; and MAF against IAF: the time to evaluate the
density of 10,000 points and to draw 10,000 samples (the trade-off, measured); and what
``FlowSession`` adds to a step (lock, checks, rollback points) over a plain flow + Adam
loop on the same flow and batches, in interleaved rounds so that load from other
processes falls on both alike (the ratio is the figure to compare between machines).

    .venv/bin/python benchmarks/bench_flows.py [--steps 2000] [--threads 1] [--rounds 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=10,
                        help="rounds of 50 steps each for the session overhead")
    args = parser.parse_args()
    import torch

    from models.flows import FlowSession, build_flow, densities

    torch.set_num_threads(args.threads)
    for name in ("two_moons", "8gaussians"):
        session = FlowSession("realnvp", name, num_flows=8, hidden_dim=64, batch_size=256,
                              lr=1e-3)
        t0 = time.perf_counter()
        for _ in session.train(args.steps):
            pass
        wall = time.perf_counter() - t0
        held_out = torch.as_tensor(densities.sample(name, 20_000, seed=123))
        with torch.no_grad():
            session.flow.eval()
            nll = float(-session.flow.log_prob(held_out).mean())
        print(f"RealNVP (8 layers, 64 hidden) on {name}: held-out NLL {nll:.3f} nats after "
              f"{args.steps} steps (entropy {session.entropy:.3f}, gap {nll - session.entropy:.3f}"
              f"); {wall:.1f} s, {args.steps / wall:.0f} steps/s", flush=True)

    x = torch.as_tensor(densities.sample("two_moons", 10_000, seed=5))
    for kind in ("maf", "iaf"):
        flow = build_flow(kind, num_flows=8, hidden_dim=64).eval()
        dens, samp = [], []
        with torch.no_grad():
            for _ in range(7):
                t0 = time.perf_counter()
                flow.log_prob(x)
                dens.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                flow.sample(10_000, seed=0)
                samp.append(time.perf_counter() - t0)
        print(f"{kind.upper()} (8 layers): log p of 10,000 points "
              f"{statistics.median(dens[2:]) * 1e3:6.1f} ms, 10,000 samples "
              f"{statistics.median(samp[2:]) * 1e3:6.1f} ms", flush=True)
    session_overhead(args.rounds)
    print(f"torch threads {torch.get_num_threads()}")
    return 0


def session_overhead(rounds: int, per_round: int = 50) -> None:
    """Median ms per step of ``FlowSession.train`` and of a plain loop (the same RealNVP,
    batch size and Adam: batch, NLL, backward, step), rounds interleaved."""
    import torch

    from models.flows import FlowSession, build_flow

    session = FlowSession("realnvp", "two_moons", num_flows=8, hidden_dim=64,
                          batch_size=256, lr=1e-3)
    torch.manual_seed(0)
    plain = build_flow("realnvp", num_flows=8, hidden_dim=64)
    opt = torch.optim.Adam(plain.parameters(), lr=1e-3)
    pool, gen = session.pool, torch.Generator().manual_seed(0)

    def plain_steps(n: int) -> None:
        for _ in range(n):
            x = pool[torch.randint(0, len(pool), (256,), generator=gen)]
            loss = -plain.log_prob(x).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

    def session_steps(n: int) -> None:
        for _ in session.train(n):
            pass

    times: dict[str, list[float]] = {"session": [], "plain": []}
    for i in range(rounds + 1):
        for name, run in (("session", session_steps), ("plain", plain_steps)):
            t0 = time.perf_counter()
            run(per_round)
            if i:                                  # round 0 warms both up
                times[name].append((time.perf_counter() - t0) / per_round * 1e3)
    s, p = statistics.median(times["session"]), statistics.median(times["plain"])
    ratios = [a / b for a, b in zip(times["session"], times["plain"], strict=True)]
    print(f"FlowSession step {s:.2f} ms, plain flow + Adam step {p:.2f} ms (RealNVP 8 x 64, "
          f"batch 256; median of {rounds} rounds of {per_round}); ratio {s / p:.3f} "
          f"(median per-round ratio {statistics.median(ratios):.3f})", flush=True)


if __name__ == "__main__":
    sys.exit(main())

"""Hostile input (issue 33): how the app's own file readers treat each hostile file, with
the time and peak memory of every case, on one tree or old code against new.

    .venv/bin/python benchmarks/bench_hostile.py                    # this tree
    .venv/bin/python benchmarks/bench_hostile.py --tree /work/wt/old33
    .venv/bin/python benchmarks/bench_hostile.py --both [--old-tree PATH] [--old-rev 31b4497]
    options: --cap-gb 6  --timeout 60  --cases F2,F5a  --folder-files 500

Every hostile file is written at run time into a temporary folder, by a child process
running this repository's own writers and ``tests/data/make_hostile.py`` (small on disk
where it can be: a bomb is one deflated block repeated). Then each case runs in a fresh
child process with the tree under test first on ``sys.path``: it imports torch and the
reader (as the window has before it opens a file), builds what the reader needs, prints
a "ready" line (its CPU time and resident memory then) and calls the reader on the file
once. The child runs under a memory cap (``RLIMIT_DATA``, ``--cap-gb``) and is killed
``--timeout`` seconds after "ready" (10 s for the FIFO, which the old code waits on
forever). Reported per case: the outcome (refused with the first words of its message,
accepted with what was kept, MemoryError, killed by a signal, killed at the timeout); the
wall and CPU seconds of the call alone (for a killed child: from "ready" to the kill, and
``os.wait4``'s CPU less what it had spent at "ready"); and the child's peak RSS from
``os.wait4``'s rusage with, in brackets, that peak less the RSS the child had just before
the call, the baseline of a process that has only imported the same modules and built
the same inputs: what the case itself costs.

``--both`` runs the old tree (``--old-tree``, or a temporary ``git worktree`` of
``--old-rev``, the commit before the issue 33 fixes) and ``--tree`` (default this one),
interleaved case by case, and prints one Markdown table. A reader the old tree lacks
shows "n/a (reader absent)". Figures, not a test: fails on nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the last commit before the fixes of issue 33
OLD_REV = "31b4497"

LOSS_VALUES = 1 << 27                        # 134,217,728 float32 losses: 512 MiB
POINTS = 225 << 18                           # 58,982,400 float64 points: 900 MiB
TOKENS = 3_000_000
DEEP = 100_000
STRIDE0_MODEL = 10**8                        # values the model file's loss curve claims
STRIDE0_GRAPH = 10**9                        # columns the graph file's edge_index claims
STRIDE0_X = (200_000, 50_000)                # node features claimed: 10^10 float32 (40 GB)
REAL_MEMBERS = 50_000
ATTRIBUTES = 200_000
FIFO_TIMEOUT = 10
ISSUE_FOLDER_FILES = 500
#: what a child may spend importing and building before its call, beyond --timeout
SETUP_ALLOWANCE = 120


@dataclass(frozen=True)
class Case:
    """One hostile file: what it is (``title``), how it is written (``make``, in the
    maker child) and how the app reads it (``setup``, in the case child, returns the
    call; the call returns what was accepted, in words)."""

    title: str
    reader: str
    make: Callable[[Path, argparse.Namespace], Path]
    setup: Callable[[Path], Callable[[], str]]
    timeout: float | None = None


# -- writing the files (in the maker child, with this repository's code) --------------------
def _crc_repeat(crc: int, length: int, count: int) -> int:
    """The CRC-32 of a block repeated ``count`` times, from the block's CRC and length."""
    from tests.data.make_hostile import crc32_combine

    out, have, power, power_len = 0, False, crc, length
    while count:
        if count & 1:
            out = crc32_combine(out, power, power_len) if have else power
            have = True
        power = crc32_combine(power, power, power_len)
        power_len *= 2
        count >>= 1
    return out


def _deflated(head: bytes, chunk: bytes = b"", count: int = 0) -> tuple:
    """A zip member (method, crc, size, payload) of ``head + chunk * count``: the chunk
    deflated once and its blocks repeated (each ends with a full flush), so hundreds of
    MB unpacked cost a fraction of a second to write."""
    import zlib

    from tests.data.make_hostile import crc32_combine

    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    first = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(chunk) + packer.flush(zlib.Z_FULL_FLUSH) if count else b""
    crc = zlib.crc32(head)
    if count:
        crc = crc32_combine(crc, _crc_repeat(zlib.crc32(chunk), len(chunk), count),
                            len(chunk) * count)
    payload = first + block * count + b"\x03\x00"          # an empty final block
    return (8, crc, len(head) + len(chunk) * count, payload)


def _npy_header(shape: tuple, descr: str) -> bytes:
    import io

    import numpy as np

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def _session(path: Path, replace: dict[str, tuple] | None = None, **tab) -> Path:
    """A flows-tab session written by ``write_session``, then rewritten member by member
    with ``replace[member] = (method, crc, size, payload)`` in place of its own."""
    import zipfile
    import zlib

    import numpy as np

    from models.sessionfile import SessionDocument, TabState, write_session
    from tests.data.make_hostile import _write_zip

    tab.setdefault("params", {"layers": 4})
    tab.setdefault("arrays", {"points": np.zeros((4, 2))})
    doc = SessionDocument(tabs={"flows": TabState(**tab)}, current="flows",
                          app_version="0.1.0", saved_on="cpu")
    write_session(path, doc)
    if replace:
        with zipfile.ZipFile(path) as zf:
            members = [(i.filename, *replace[i.filename]) if i.filename in replace else
                       (i.filename, 0, zlib.crc32(d := zf.read(i)), len(d), d)
                       for i in zf.infolist()]
        _write_zip(path, members)
    return path


def make_f1(folder: Path, args) -> Path:
    out = folder / "dense_folder"
    out.mkdir()
    text = "".join(f"{u} {v}\n" for u in range(200) for v in range(u + 1, 200)).encode()
    for i in range(args.folder_files):
        (out / f"g{i:03d}.edgelist").write_bytes(text)
    return out


def make_f2(folder: Path, args) -> Path:
    import numpy as np

    rng = np.random.default_rng(0)
    period = np.resize(rng.random(3500).astype(np.float32), 1 << 20)  # 4 MiB, ~70x deflated
    member = _deflated(_npy_header((LOSS_VALUES,), "<f4"), period.tobytes(), LOSS_VALUES >> 20)
    return _session(folder / "long_curve.archscope",
                    {"tabs/flows/arrays/losses.npy": member},
                    arrays={"losses": np.zeros(4, np.float32), "points": np.zeros((4, 2))})


def _seq2seq_doc(folder: Path) -> dict:
    import torch

    from models.transformer.session import Seq2SeqSession

    session = Seq2SeqSession()
    for _ in session.train(3):
        pass
    session.save(folder / "trained.pt")
    return torch.load(folder / "trained.pt", weights_only=True)


def make_f3(folder: Path, args) -> Path:
    import torch

    doc = _seq2seq_doc(folder)
    doc["losses"] = torch.ones(1).expand(STRIDE0_MODEL)
    torch.save(doc, folder / "stride0_model.pt")
    return folder / "stride0_model.pt"


def make_f4(folder: Path, args) -> Path:
    import torch

    path = folder / "stride0_graph.pt"
    torch.save({"edge_index": torch.zeros(2, 1, dtype=torch.long).expand(2, STRIDE0_GRAPH)},
               path)
    return path


def make_f4b(folder: Path, args) -> Path:
    import torch

    path = folder / "stride0_features.pt"
    torch.save({"edge_index": torch.tensor([[0, 1], [1, 0]]),
                "x": torch.zeros(1, 1).expand(*STRIDE0_X)}, path)
    return path


def make_f5a(folder: Path, args) -> Path:
    from tests.data.hostile_sessions import zip64_count

    return zip64_count(folder / "zip64_count.archscope")


def make_f5b(folder: Path, args) -> Path:
    import zipfile
    import zlib

    from tests.data.make_hostile import _write_zip

    good = _session(folder / "small.archscope")
    with zipfile.ZipFile(good) as zf:
        members = [(i.filename, 0, zlib.crc32(d := zf.read(i)), len(d), d)
                   for i in zf.infolist()]
    members += [(f"m{k}", 0, 0, 0, b"") for k in range(REAL_MEMBERS)]
    path = folder / "many_members.archscope"
    _write_zip(path, members)
    return path


def make_f6(folder: Path, args) -> Path:
    import numpy as np

    rng = np.random.default_rng(1)
    chunk = (rng.integers(0, 4, (1 << 18, 2)) * 0.5).astype(np.float64)   # 4 MiB, ~18x
    member = _deflated(_npy_header((POINTS, 2), "<f8"), chunk.tobytes(), POINTS >> 18)
    return _session(folder / "points_900mb.archscope",
                    {"tabs/flows/arrays/points.npy": member})


def _node_link(path: Path, where: str) -> Path:
    wide = {f"a{k}": k for k in range(ATTRIBUTES)}
    nodes = [{"id": 0}, {"id": 1}]
    links = [{"source": 0, "target": 1}]
    (nodes[0] if where == "node" else links[0]).update(wide)
    path.write_text(json.dumps({"directed": False, "nodes": nodes, "links": links}))
    return path


def make_f7a(folder: Path, args) -> Path:
    return _node_link(folder / "wide_node.json", "node")


def make_f7b(folder: Path, args) -> Path:
    return _node_link(folder / "wide_link.json", "link")


def _model_folder(folder: Path, name: str, **own: str) -> Path:
    """A model folder of the bundled model's files (linked), with ``own`` files written."""
    from models.pretrained.options import bundled_model_path

    bundled = bundled_model_path()
    out = folder / name
    out.mkdir()
    for file in ("config.json", "tokenizer.json", "model.safetensors"):
        if file in own:
            (out / file).write_text(own[file])
        else:
            (out / file).symlink_to(bundled / file)
    return out


def make_f8(folder: Path, args) -> Path:
    from models.pretrained.options import bundled_model_path

    doc = json.loads((bundled_model_path() / "tokenizer.json").read_text())
    vocab = doc["model"]["vocab"]
    doc["model"]["vocab"] = "VOCAB"
    extra = ",".join(f'"tok{k:x}":{len(vocab) + k}' for k in range(TOKENS - len(vocab)))
    text = json.dumps(doc).replace('"VOCAB"', json.dumps(vocab)[:-1] + "," + extra + "}")
    return _model_folder(folder, "big_tokenizer", **{"tokenizer.json": text})


def make_f10a(folder: Path, args) -> Path:
    import zipfile

    path = folder / "deep_manifest.archscope"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", "[" * DEEP + "]" * DEEP)
    return path


def make_f10b(folder: Path, args) -> Path:
    return _model_folder(folder, "deep_config", **{"config.json": "[" * DEEP + "]" * DEEP})


def make_f10c(folder: Path, args) -> Path:
    member = _deflated(_npy_header((10**7, 10**7), "<f8") + bytes(64))
    return _session(folder / "npy_728tib.archscope", {"tabs/flows/arrays/points.npy": member})


def make_f12a(folder: Path, args) -> Path:
    import torch

    doc = _seq2seq_doc(folder)
    doc["losses"] = torch.full((3,), float("nan"))
    torch.save(doc, folder / "nan_losses.pt")
    return folder / "nan_losses.pt"


def _flow_session():
    from models.flows import FlowSession

    return FlowSession("realnvp", "two_moons", num_flows=2, hidden_dim=8, batch_size=32)


def make_f12b(folder: Path, args) -> Path:
    session = _flow_session()
    for _ in session.train(3, eval_every=1):
        pass
    tensors, meta = session.save_state()
    meta = {**json.loads(json.dumps(meta)), "lr": -5}
    return _session(folder / "lr_minus5.archscope", params={},
                    data={"sessions": {"main": meta}},
                    tensors={f"main/{k}": v for k, v in tensors.items()})


def make_f13(folder: Path, args) -> Path:
    (folder / "fifo").mkdir()
    os.mkfifo(folder / "fifo" / "points.csv")
    return folder / "fifo" / "points.csv"


# -- reading them (in the case child, with the tree under test) -----------------------------
def _arrays(doc) -> str:
    return "; ".join(f"{k} {tuple(v.shape)} {v.dtype}" for tab in doc.tabs.values()
                     for k, v in tab.arrays.items())


def setup_session(path: Path):
    from models.sessionfile import read_session

    return lambda: f"opened: {_arrays(read_session(path))}"


def setup_folder(path: Path):
    from models.generation.folder import load_graph_folder

    def call():
        graphs = load_graph_folder(path)
        return f"{len(graphs)} graphs, {sum(g.number_of_edges() for g in graphs):,} edges"
    return call


def setup_model_file(path: Path):
    from models.transformer.session import Seq2SeqSession

    def call():
        session = Seq2SeqSession.load(path)
        losses = session.losses
        return f"opened: {len(losses):,} losses kept, the first {losses[:2]}"
    return call


def setup_graph(path: Path):
    from models.graphs import load_graph

    def call():
        doc = load_graph(path)
        return f"{len(doc.node_ids):,} nodes, {len(doc.edges):,} edges"
    return call


def setup_pretrained(path: Path):
    from models.pretrained import load_pretrained

    return lambda: f"opened: {load_pretrained(path).name}"


def setup_flow_session(path: Path):
    from models.sessionfile import read_session

    session = _flow_session()

    def call():
        state = read_session(path).tabs["flows"]
        tensors = {k[5:]: v for k, v in state.tensors.items() if k.startswith("main/")}
        session.load_state(tensors, state.data["sessions"]["main"], path.name)
        return f"opened: the session trains with lr {session.lr:g}"
    return call


def setup_points(path: Path):
    from models.flows.points import load_points_csv

    return lambda: f"{len(load_points_csv(path)):,} points"


CASES: dict[str, Case] = {
    "F1": Case("generation folder of {files} edge lists, each a complete 200-node graph "
               "(19,900 edges){scaled}", "load_graph_folder", make_f1, setup_folder),
    "F2": Case("session with a 134 M-value loss curve (512 MiB unpacked)",
               "read_session", make_f2, setup_session),
    "F3": Case("Transformer model file, losses stride-0: 10^8 values over 1 stored",
               "Seq2SeqSession.load", make_f3, setup_model_file),
    "F4a": Case("graph .pt, edge_index stride-0: (2, 10^9) over 1 column stored",
                "load_graph", make_f4, setup_graph),
    "F4b": Case("graph .pt, 2 edges and node features x stride-0: (200,000, 50,000) "
                "float32 over 1 value stored", "load_graph", make_f4b, setup_graph),
    "F5a": Case("session whose zip64 end records claim 3,000,002 members",
                "read_session", make_f5a, setup_session),
    "F5b": Case("session with 50,002 real members", "read_session", make_f5b,
                setup_session),
    "F6": Case("session whose points unpack to 900 MiB (58,982,400 × 2 float64)",
               "read_session", make_f6, setup_session),
    "F7a": Case("node-link JSON, 200,000 attributes on one node", "load_graph", make_f7a,
                setup_graph),
    "F7b": Case("node-link JSON, 200,000 attributes on one link", "load_graph", make_f7b,
                setup_graph),
    "F8": Case("model folder with a tokenizer.json of 3 M tokens", "load_pretrained",
               make_f8, setup_pretrained),
    "F10a": Case("session manifest nested 100,000 deep", "read_session", make_f10a,
                 setup_session),
    "F10b": Case("model folder, config.json nested 100,000 deep", "load_pretrained",
                 make_f10b, setup_pretrained),
    "F10c": Case("session array whose npy header claims (10^7, 10^7) float64",
                 "read_session", make_f10c, setup_session),
    "F12a": Case("Transformer model file with NaN losses", "Seq2SeqSession.load",
                 make_f12a, setup_model_file),
    "F12b": Case("flows session with lr -5", "read_session + FlowSession.load_state",
                 make_f12b, setup_flow_session),
    "F13": Case("a FIFO named points.csv", "load_points_csv", make_f13, setup_points,
                timeout=FIFO_TIMEOUT),
}


# -- the children ------------------------------------------------------------------------------
def _status_kb(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _say(**fields) -> None:
    print(json.dumps(fields), flush=True)


def maker_main(folder: Path, args) -> int:
    """Write every case's file into ``folder``; print {case: [path, bytes on disk]}."""
    sys.path.insert(0, str(ROOT))
    import torch

    torch.set_num_threads(1)
    made = {}
    for key in args.cases:
        t0 = time.perf_counter()
        try:
            path = CASES[key].make(folder, args)
        except Exception as exc:  # noqa: BLE001 - said in the table, the rest still run
            made[key] = [None, 0, f"{type(exc).__name__}: {exc}"]
            continue
        files = [path] if not path.is_dir() else list(path.iterdir())
        size = sum(p.stat().st_size for p in files if not p.is_symlink() and p.is_file())
        made[key] = [str(path), size, time.perf_counter() - t0]
    _say(made=made)
    return 0


def _preload() -> None:
    """What the window has imported before it opens any file (torch and the libraries
    the readers import on first use), so a call is measured without their import."""
    import importlib

    for module in ("numpy", "torch", "safetensors.torch", "networkx", "models.errors"):
        try:
            importlib.import_module(module)
        except ImportError:
            pass
    sys.modules["torch"].set_num_threads(1)


def child_main(key: str, path: Path, tree: Path) -> int:
    """Run case ``key`` on ``path`` with ``tree``'s code; print "ready", then the outcome."""
    sys.path.insert(0, str(tree))
    _preload()
    try:
        call = CASES[key].setup(path)
    except (ImportError, AttributeError) as exc:
        _say(absent=f"{type(exc).__name__}: {exc}")
        return 0
    _say(ready=time.time(), cpu=time.process_time(), rss_kb=_status_kb("VmRSS"))
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        kept = call()
        outcome = f"accepted: {kept}"
    except MemoryError as exc:
        outcome = f"MemoryError: {exc}"
    except BaseException as exc:  # noqa: BLE001 - every way a reader can end is a figure
        text = " ".join(str(exc).split())
        ours = any(c.__name__ == "ArchScopeError" for c in type(exc).__mro__)
        outcome = (f"refused: {text}" if ours else
                   f"crashed: {type(exc).__name__}: {text}")
    _say(outcome=outcome, wall=time.perf_counter() - t0, cpu_call=time.process_time() - c0)
    os._exit(0)          # no teardown of what the reader kept (seconds for 10^8 floats)


# -- the parent --------------------------------------------------------------------------------
@dataclass
class Result:
    outcome: str
    wall: float | None = None
    cpu: float | None = None
    peak_mb: float | None = None
    above_mb: float | None = None

    def figures(self) -> str:
        if self.wall is None:
            return "–"
        return (f"{_secs(self.wall)} / {_secs(self.cpu)} / {self.peak_mb:,.0f} MB "
                f"(+{max(0.0, self.above_mb):,.0f})")


def _secs(seconds: float) -> str:
    return f"{1000 * seconds:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def _env(tree: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
                QT_QPA_PLATFORM="offscreen", TOKENIZERS_PARALLELISM="false",
                PYTHONDONTWRITEBYTECODE="1")


def run_case(key: str, path: str, tree: Path, cap_gb: float, timeout: float,
             scratch: Path) -> Result:
    """One fresh child on ``path``; the outcome and the figures of the call."""
    cap = int(cap_gb * (1 << 30))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))

    out = scratch / f"{key}.out"
    with open(out, "w") as fh_out, open(scratch / f"{key}.err", "w") as fh_err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--child", key, "--path", path,
             "--tree", str(tree)], cwd=tree, env=_env(tree), stdout=fh_out, stderr=fh_err,
            stdin=subprocess.DEVNULL, preexec_fn=limit)
        killed, started, deadline = False, False, start + timeout + SETUP_ALLOWANCE
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if not started and '"ready"' in out.read_text():
                started, deadline = True, time.perf_counter() + timeout   # the call's own
            if time.perf_counter() > deadline:
                proc.kill()
                killed = True
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        ended = time.time()
        proc.returncode = os.waitstatus_to_exitcode(status)
    lines = [json.loads(line) for line in out.read_text().splitlines()
             if line.startswith("{")]
    said = {k: v for line in lines for k, v in line.items()}
    if "absent" in said:
        return Result(f"n/a (reader absent: {said['absent'][:60]})")
    peak_kb = usage.ru_maxrss
    cpu_total = usage.ru_utime + usage.ru_stime
    ready = "ready" in said
    if "outcome" in said:
        outcome, wall = said["outcome"], said["wall"]
    else:
        wall = None
        if killed:
            outcome = (f"blocked: killed at {timeout:g} s" if CASES[key].timeout else
                       f"timed out: killed at {timeout:g} s")
        elif os.WIFSIGNALED(status):
            sig = signal.Signals(os.WTERMSIG(status)).name
            outcome = f"killed by {sig} (cap {cap_gb:g} GiB)" if sig == "SIGKILL" else \
                f"crashed: {sig}"
        else:
            tail = (scratch / f"{key}.err").read_text().strip().splitlines()[-1:] or [""]
            outcome = f"exit {proc.returncode}: {tail[0]}"
    if wall is None and ready:      # no answer: from the ready line to the kill
        wall = ended - said["ready"]
    if outcome.startswith("MemoryError") and peak_kb * 1024 > 0.9 * cap:
        outcome = f"MemoryError at the {cap_gb:g} GiB cap" + outcome[len("MemoryError"):]
    cpu = said.get("cpu_call", cpu_total - said.get("cpu", 0.0))   # killed: by rusage
    return Result(_short(outcome), wall if ready else None, cpu if ready else None,
                  peak_kb / 1024, (peak_kb - said.get("rss_kb", 0)) / 1024)


def _short(text: str, words: int = 100) -> str:
    head, _, rest = text.partition(": ")
    if not rest:
        return text
    rest = rest.replace("|", "\\|")
    return f"{head}: {rest[:words]}{'…' if len(rest) > words else ''}"


def _make_files(folder: Path, args) -> dict:
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--make", str(folder),
         "--cases", ",".join(args.cases), "--folder-files", str(args.folder_files)],
        cwd=ROOT, env=_env(ROOT), capture_output=True, text=True)
    said = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not said:
        sys.stderr.write(proc.stderr)
        raise SystemExit("writing the hostile files failed")
    return said[-1]["made"]


def _worktree(rev: str, where: Path) -> Path:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), rev],
                   check=True, capture_output=True)
    return where


def _size(nbytes: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if nbytes < 1024 or unit == "GB":
            return f"{nbytes:,.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return ""


def _commit(tree: Path) -> str:
    """The tree and its commit (with "+ changes" when it has uncommitted ones)."""
    def git(*words: str) -> str:
        return subprocess.run(["git", "-C", str(tree), *words], capture_output=True,
                              text=True).stdout.strip()
    dirty = " + changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    return f"{tree} ({git('rev-parse', '--short', 'HEAD') or '?'}{dirty})"


def _title(key: str, args) -> str:
    files = args.folder_files
    scaled = ("" if files == ISSUE_FOLDER_FILES else
              f", scaled from the issue's {ISSUE_FOLDER_FILES}")
    return CASES[key].title.format(files=files, scaled=scaled)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT,
                        help="the source tree whose readers run (default: this one)")
    parser.add_argument("--both", action="store_true",
                        help="old tree then this one, case by case, in one table")
    parser.add_argument("--old-tree", type=Path, help="the old tree (default: a temporary "
                                                      "worktree of --old-rev)")
    parser.add_argument("--old-rev", default=OLD_REV)
    parser.add_argument("--cap-gb", type=float, default=6.0)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--cases", default=",".join(CASES),
                        help="comma-separated case keys (default: all)")
    parser.add_argument("--folder-files", type=int, default=ISSUE_FOLDER_FILES,
                        help="graph files in F1's folder (the issue's 500: 67 MB)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    parser.add_argument("--make", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}; known: {', '.join(CASES)}")
    if args.child:
        return child_main(args.child, Path(args.path), args.tree.resolve())
    if args.make:
        return maker_main(args.make, args)

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_hostile_") as tmp:
        tmp = Path(tmp)
        (tmp / "files").mkdir()
        (tmp / "scratch").mkdir()
        made = _make_files(tmp / "files", args)
        print(f"hostile files written in {time.perf_counter() - started:.0f} s")
        trees = {"tree": args.tree.resolve()}
        made_worktree = None
        if args.both:
            old = args.old_tree or _worktree(args.old_rev, tmp / "old")
            made_worktree = None if args.old_tree else old
            trees = {"old": old.resolve(), "new": args.tree.resolve()}
        results: dict[tuple[str, str], Result] = {}
        try:
            for key in args.cases:
                for label, tree in trees.items():
                    timeout = CASES[key].timeout or args.timeout
                    if made[key][0] is None:
                        res = Result(_short(f"not written: {made[key][2]}"))
                    else:
                        res = run_case(key, made[key][0], tree, args.cap_gb, timeout,
                                       tmp / "scratch")
                    results[key, label] = res
                    print(f"  {key:5s} {label}: {res.outcome[:70]}  {res.figures()}",
                          flush=True)
        finally:
            if made_worktree is not None:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(made_worktree)], capture_output=True)
    print()
    named = ", ".join(f"{k} = {_commit(v)}" for k, v in trees.items())
    print(f"Hostile input, issue 33: {named}; "
          f"each case a fresh process under RLIMIT_DATA {args.cap_gb:g} GiB, killed at "
          f"{args.timeout:g} s ({FIFO_TIMEOUT} s for the FIFO). Figures: wall / CPU of the "
          "call / peak RSS of the process (+ above its RSS just before the call).")
    print()
    cols = list(trees)
    head = "| case | file (on disk) | reader | " + " | ".join(
        f"{c} outcome | {c} wall / CPU / peak" for c in cols) + " |"
    print(head)
    print("|" + "---|" * (3 + 2 * len(cols)))
    for key in args.cases:
        cells = [key, f"{_title(key, args)}; {_size(made[key][1])} on disk", CASES[key].reader]
        for c in cols:
            res = results[key, c]
            cells += [res.outcome, res.figures()]
        print("| " + " | ".join(cells) + " |")
    print()
    print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``archscope session``: look into a session file from the command line, without a
window and without loading a model. What the file says is shown as text: a terminal
escape in it is printed as an escape, never run by the terminal."""

from __future__ import annotations

import argparse
import json
import os
import sys


def session_main(argv: list[str]) -> int:
    """``archscope session info FILE [--json]``: what a session file holds, from its
    checked manifest (nothing is loaded into a model)."""
    parser = argparse.ArgumentParser(prog="archscope session",
                                     description="Look into a session file (.archscope).")
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="print the manifest of a session file")
    info.add_argument("file")
    info.add_argument("--json", action="store_true", help="the manifest as JSON")
    args = parser.parse_args(argv)
    from models.errors import SessionFileError
    from models.sessionfile import read_manifest

    try:
        manifest = read_manifest(args.file)
    except SessionFileError as exc:
        sys.stderr.write(f"archscope session: {exc}\n")
        return 1
    if args.json:
        print(json.dumps(manifest, indent=1, ensure_ascii=False))
        return 0
    print(describe_manifest(manifest, os.path.basename(args.file)))
    return 0


def printable(value, limit: int = 200) -> str:
    """``value`` as one line a terminal shows as written: control and format characters
    (an ANSI escape that would recolour or clear the terminal, a newline that would fake
    a line, a right-to-left override) are shown as escapes; long text is cut at
    ``limit`` characters."""
    import unicodedata

    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                          default=str)
    if len(text) > limit:
        text = text[:limit] + "…"
    return "".join(ch if unicodedata.category(ch) not in ("Cc", "Cf") or ch == " " else
                   ch.encode("unicode_escape").decode("ascii") for ch in text)


def describe_manifest(manifest: dict, name: str) -> str:
    """The manifest as a person reads it: versions, where it was saved, each tab's
    settings, training sessions (kind, steps) and the arrays and weights it holds. Every
    value from the file is shown through ``printable``; a value of another shape than
    ArchScope writes is shown as it is, not trusted (a list where a table belongs)."""
    members = manifest.get("_members", {})

    def size(member) -> str:
        return f"{members.get(member, 0):,} bytes" if isinstance(member, str) else \
            f"at {printable(member)} (not a member name)"

    def get(key) -> str:
        return printable(manifest.get(key) or "?")

    lines = [f"{printable(name)}: ArchScope session, format {manifest['format_version']}, "
             f"written by ArchScope {get('app_version')}",
             f"saved {get('saved_at')} on {get('saved_on')}; "
             f"tab in front: {printable(manifest.get('current') or '-')}"]
    for tab, entry in manifest["tabs"].items():
        lines.append(f"[{printable(tab)}]")
        params = entry.get("params", {})
        if params:
            lines.append("  settings: " + ", ".join(f"{printable(k)}={printable(v)}"
                                                    for k, v in params.items()))
        sessions = entry.get("data", {}).get("sessions") or {}
        if not isinstance(sessions, dict):
            lines.append(f"  sessions: {printable(sessions)} (not a table of sessions)")
            sessions = {}
        for sname, meta in sessions.items():
            if isinstance(meta, dict):
                lines.append(f"  session {printable(sname)}: {printable(meta.get('kind', '?'))}, "
                             f"{printable(meta.get('step', 0))} steps, "
                             f"lr {printable(meta.get('lr', '?'))}, "
                             f"trained on {printable(meta.get('saved_on', '?'))}")
        if entry.get("weights"):
            lines.append(f"  weights: {size(entry['weights'])}")
        for key, member in entry.get("arrays", {}).items():
            lines.append(f"  array {printable(key)}: {size(member)}")
    return "\n".join(lines)

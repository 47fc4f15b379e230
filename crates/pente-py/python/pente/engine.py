"""The engine from Python: ``pente engine`` (its JSON-lines protocol) as a
subprocess, so that any model directory runs on either backend without
this package linking a network framework."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Union


def find_binary() -> str:
    """``$PENTE_BIN``, else ``pente`` on the ``PATH``."""
    binary = os.environ.get("PENTE_BIN") or shutil.which("pente")
    if not binary:
        raise FileNotFoundError(
            "no pente binary: cargo install --path crates/pente-cli, or set PENTE_BIN, or pass binary="
        )
    return binary


class Engine:
    """An analysis engine: ``Engine(model)`` starts ``pente engine --model
    MODEL``; ``analyze`` sends one position and returns the engine's answer
    as a dict (``best_move``, ``value``, ``winrate``, ``candidates``, the
    proof when the search decides the game, ``policy`` on request). A bad
    request raises ``ValueError`` with the engine's message; the engine keeps
    serving. Use it as a context manager, or call ``close``.

    ``model``: a model directory, ``"heuristic"`` or ``"uniform"`` (default:
    the shipped network, else the heuristic). ``backend``: ``"auto"``,
    ``"ort"`` or ``"burn"``. ``visits`` / ``level``: the defaults of requests
    that give neither.
    """

    def __init__(
        self,
        model: Optional[Union[str, os.PathLike]] = None,
        *,
        backend: str = "auto",
        visits: Optional[int] = None,
        level: Optional[int] = None,
        binary: Optional[str] = None,
    ) -> None:
        command = [binary or find_binary(), "engine", "--backend", backend]
        if model is not None:
            command += ["--model", str(model)]
        if visits is not None:
            command += ["--visits", str(visits)]
        if level is not None:
            command += ["--level", str(level)]
        # stderr to a file: read when the engine fails, never a pipe that could fill up.
        self._stderr = tempfile.TemporaryFile(mode="w+")
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True, bufsize=1
        )
        self._next_id = 0

    def analyze(
        self,
        position: Union["Game", Sequence[str], str],  # noqa: F821 (pente.Game)
        *,
        variant: Optional[str] = None,
        size: Optional[int] = None,
        visits: Optional[int] = None,
        level: Optional[int] = None,
        seconds: Optional[float] = None,
        clock: Optional[Dict[str, float]] = None,
        model: Optional[Union[str, os.PathLike]] = None,
        policy: bool = False,
    ) -> Dict[str, Any]:
        """The engine's answer for a position: a ``pente.Game`` (its variant,
        size and moves) or moves (a list, or a move list ``"K10 L9"``) under
        ``variant`` and ``size`` (default ``pente``, 19). ``clock``:
        ``{"remaining": seconds, "increment": seconds}``, the mover's game clock,
        of which the engine spends a share."""
        if isinstance(position, str):
            moves = position.split()
        elif hasattr(position, "moves") and hasattr(position, "variant"):
            moves = list(position.moves)
            variant = variant or position.variant
            size = size or position.size
        else:
            moves = list(position)
        request: Dict[str, Any] = {"id": self._next_id, "moves": moves, "policy": policy}
        self._next_id += 1
        for key, value in [("variant", variant), ("size", size), ("visits", visits), ("level", level),
                           ("seconds", seconds), ("clock", clock), ("model", None if model is None else str(model))]:
            if value is not None:
                request[key] = value
        try:
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            raise RuntimeError(f"the engine exited (code {self._process.wait()}): {self._said()}")
        answer = json.loads(line)
        if "error" in answer:
            raise ValueError(answer["error"])
        return answer

    def _said(self) -> str:
        """The end of what the engine wrote on stderr."""
        self._stderr.seek(0)
        return self._stderr.read()[-2000:].strip()

    def close(self) -> None:
        """Ends the engine (it stops when its input closes)."""
        if self._process.poll() is None:
            self._process.stdin.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._stderr.close()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - the interpreter may be shutting down
            pass

"""Type stubs of the native module ``pente._pente`` (re-exported by ``pente``)."""

import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

#: Every variant's name, in the order of the samples' ``variant`` index.
VARIANTS: List[str]
#: The input feature versions this build encodes.
FEATURES_VERSIONS: List[int]
#: The version new networks read.
LATEST_FEATURES: int
#: The plane that marks the legal moves (also the policy's mask).
LEGAL_PLANE: int

#: A move: ``"K10"`` (or ``"swap"``, ``"stay"``, ``"pass"``), a dense index
#: ``y * size + x``, or an ``(x, y)`` pair from ``A1 = (0, 0)``.
Move = Union[str, int, Tuple[int, int]]

class Game:
    """A game of Pente or one of its variants, from the empty board.

    ``moves`` is a move list (``"K10 L9 K7"``) or a sequence of moves,
    replayed with the rules' checks. An unknown variant, a board size the
    variant does not have, or an illegal move raises ``ValueError``.
    """

    def __init__(self, variant: str = "pente", size: int = 19, moves: Optional[Union[str, Sequence[Move]]] = None) -> None: ...
    def play(self, point: Move) -> None:
        """Plays a move; an illegal one raises ``ValueError`` naming it and the rule."""
    def undo(self) -> Optional[str]:
        """Takes back the last move and returns it, or ``None`` at the start."""
    def is_legal(self, point: Move) -> bool:
        """Whether a move is legal now."""
    def legal_moves(self) -> List[str]:
        """The legal moves: board points in index order, then the colour choices."""
    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """The legal board points, ``bool [size, size]`` indexed ``[y, x]``."""
    def board(self) -> npt.NDArray[np.int8]:
        """``int8 [size, size]``, ``board[y, x]`` (row 0 is row 1, column 0 is A): 1 White, -1 Black, 0 empty."""
    def features(self, version: int = ...) -> npt.NDArray[np.float32]:
        """The network's input planes, ``float32 [planes, size, size]``."""
    def copy(self) -> "Game":
        """A copy that plays on independently."""
    def __copy__(self) -> "Game": ...
    def __deepcopy__(self, memo: Dict[int, Any]) -> "Game": ...
    @property
    def variant(self) -> str:
        """The variant's name, e.g. ``"pente"``."""
    @property
    def size(self) -> int:
        """The board's side."""
    @property
    def ply(self) -> int:
        """Moves played, colour choices included."""
    @property
    def to_move(self) -> str:
        """``"white"`` or ``"black"``."""
    @property
    def captures(self) -> Dict[str, int]:
        """Stones captured by each side: ``{"white": n, "black": n}``."""
    @property
    def capture_win(self) -> Optional[int]:
        """Captured stones that win, ``None`` where captures do not win."""
    @property
    def choices(self) -> List[str]:
        """The colour choices legal now (D-Pente, Swap2); empty when none is pending."""
    @property
    def is_over(self) -> bool: ...
    @property
    def winner(self) -> Optional[str]:
        """``"white"``, ``"black"``, or ``None`` (a draw, or the game goes on)."""
    @property
    def reason(self) -> Optional[str]:
        """Why the game ended (``"five"``, ``"captures"``, ...), ``None`` while it goes on."""
    @property
    def hash(self) -> int:
        """The position's Zobrist hash (``pente replay`` prints it in hex)."""
    @property
    def moves(self) -> List[str]:
        """Every move played, in notation."""
    def move_indices(self) -> npt.NDArray[np.int32]:
        """The moves as dense indices ``y * size + x`` (-1 for a colour choice)."""
    def move_list(self) -> str:
        """The moves as one line, ``"K10 L9 K7"``."""
    def __len__(self) -> int: ...
    def __getitem__(self, index: int) -> str: ...

def move_index(point: str, size: int = 19) -> int:
    """The dense index ``y * size + x`` of a move in notation (``"K10"``); -1 for a colour choice."""

def move_name(index: int, size: int = 19) -> str:
    """The notation of a dense index ``y * size + x``."""

def feature_planes(version: int = ...) -> int:
    """The number of input planes of a features version."""

def encode(games: Sequence[Game], version: int = ...) -> npt.NDArray[np.float32]:
    """The input planes of the games' positions, ``float32 [len(games), planes, size, size]``,
    encoded in parallel; every game on one board size."""

Samples = Dict[str, Any]
"""A dict of arrays, N samples on one board size S:

- ``size``: S; ``game_id`` uint64 [N]; ``variant`` uint8 [N] (index into ``VARIANTS``);
  ``ply`` int32 [N] (moves before the position)
- ``board`` int8 [N, S, S] (1 White, -1 Black); ``to_move`` int8 [N] (1 White, -1 Black);
  ``captures`` int16 [N, 2] (stones captured by White, by Black)
- ``policy`` float32 [N, S*S]: the search's target, normalized, index ``y * S + x``
- ``value`` float32 [N]: the result for the side to move (1, 0, -1); ``result`` int8 [N]: White's (1, 0, -1)
- ``reply`` int32 [N]: the opponent's next move (dense index, -1 if none)
- ``ownership`` int8 [N, S, S]: the last position from the side to move (1 own, -1 the opponent's)
- ``final_captures`` float32 [N, 2]: stones the side to move and the opponent had captured
  at the end over the capture win (0 where captures do not win)
- ``features`` float32 [N, planes, S, S], when asked for
"""

def read_samples(
    path: Union[str, os.PathLike[str]],
    *,
    features: Optional[int] = None,
    size: Optional[int] = None,
    allow_truncated: bool = False,
) -> Samples:
    """Every sample of a ``samples.bin``. ``features``: also encode the input planes of
    that version. ``size``: only games on that board (by default the first game's; another
    size raises ``ValueError``). A file cut short raises ``ValueError`` unless
    ``allow_truncated``, which keeps the complete games."""

class SamplesIter(Iterator[Samples]):
    def __iter__(self) -> "SamplesIter": ...
    def __next__(self) -> Samples: ...
    @property
    def offset(self) -> int:
        """Bytes of the file read so far."""

def iter_samples(
    path: Union[str, os.PathLike[str]],
    chunk_size: int = 65536,
    *,
    features: Optional[int] = None,
    size: Optional[int] = None,
    allow_truncated: bool = False,
) -> SamplesIter:
    """``read_samples`` in chunks of whole games, at least ``chunk_size`` samples each
    (the last may be smaller), for files larger than memory."""

class SampleWindow:
    """The newest ``window`` samples of ``paths`` (samples.bin files or run directories,
    one board size: ``size=`` keeps one of several) as ``pente train``'s replay window
    holds them (it is the same code): games, a few bytes a sample; ``batch`` replays and
    encodes the samples it is asked for."""

    def __init__(
        self,
        paths: Sequence[Union[str, os.PathLike[str]]],
        window: int = 250000,
        *,
        size: Optional[int] = None,
        allow_truncated: bool = False,
    ) -> None: ...
    def __len__(self) -> int: ...
    @property
    def size(self) -> Optional[int]:
        """The board side of its samples (``None`` when empty)."""
    def batch(self, indices: Sequence[int], features: Optional[int] = None) -> Samples:
        """The columns of the samples at ``indices`` (repeats allowed), as ``read_samples``
        returns them, with the input planes of ``features`` if given."""

def read_games(
    path: Union[str, os.PathLike[str]],
    format: Optional[str] = None,
    *,
    variant: str = "pente",
    size: int = 19,
) -> List[Dict[str, Any]]:
    """Every game of a ``games.csv``, ``games.jsonl``, PGN or move-list file, one dict each
    (``line``, ``variant``, ``size``, ``result``, ``moves``, and the format's own fields).
    ``format`` is ``"csv"``, ``"jsonl"``, ``"pgn"`` or ``"moves"`` (move lists under
    ``variant`` and ``size``); by default from the extension or the first characters."""

def store_chunks(store: str, *, cache: Optional[Union[str, os.PathLike[str]]] = None) -> List[Dict[str, Any]]:
    """Every usable chunk of a store of distributed self-play (a directory or an object
    store URL), oldest first: ``worker``, ``index``, ``model``, ``games``, ``samples``,
    ``committed_ms`` and ``path``, a local directory with its ``samples.bin``,
    ``games.csv`` and ``games.jsonl``. A chunk whose files are missing or not their
    manifest's sizes is set aside (as the trainer does) and left out."""

def set_aside(store: str) -> List[Dict[str, Any]]:
    """The chunks of a store set aside: ``manifest``, ``reason``, ``at_ms``."""

"""Token files on disk, lazy memory maps and (x, y) next-token batches."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from cs336_lec2.data import get_batch, open_tokens, write_tokens


@pytest.fixture
def token_file(tmp_path: Path) -> tuple[Path, np.ndarray]:
    tokens = np.random.default_rng(0).integers(0, 50_257, size=10_000)  # GPT-2's vocabulary size
    path = tmp_path / "tokens.bin"
    assert write_tokens(path, tokens) == 20_000  # 2 bytes a token in uint16
    return path, tokens


def test_round_trip_is_raw_lazy_and_read_only(token_file: tuple[Path, np.ndarray]) -> None:
    path, tokens = token_file
    assert path.stat().st_size == 2 * len(tokens)  # raw: no header
    data = open_tokens(path)
    assert isinstance(data, np.memmap) and data.dtype == np.uint16 and data.shape == (10_000,)
    np.testing.assert_array_equal(data, tokens)
    with pytest.raises(ValueError, match="read-only"):
        data[0] = 1


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint32, np.int64])
def test_other_dtypes(tmp_path: Path, dtype: Any) -> None:
    tokens = np.arange(100) % 128
    path = tmp_path / "t.bin"
    assert write_tokens(path, tokens, dtype=dtype) == 100 * np.dtype(dtype).itemsize
    np.testing.assert_array_equal(open_tokens(path, dtype=dtype), tokens)


def test_real_npy_files_open_through_np_load(tmp_path: Path) -> None:
    path = tmp_path / "tokens.npy"
    np.save(path, np.arange(50, dtype=np.uint16))
    data = open_tokens(path)
    assert isinstance(data, np.memmap)
    np.testing.assert_array_equal(data, np.arange(50))
    with pytest.raises(ValueError, match=r"holds shape \(50,\) uint16, expected 1-D int32"):
        open_tokens(path, dtype=np.int32)


def test_npy_trap(tmp_path: Path) -> None:
    # What write_tokens refuses to do: raw bytes under a .npy name, which np.load cannot read.
    with pytest.raises(ValueError, match=r"must not end in \.npy.*np\.load would expect a \.npy header"):
        write_tokens(tmp_path / "tokens.npy", [1, 2, 3])
    raw = tmp_path / "raw.npy"
    np.arange(10, dtype=np.uint16).tofile(raw)
    with pytest.raises(ValueError):
        np.load(raw)
    with pytest.raises(ValueError, match=r"named \.npy but has no \.npy header.*rename it to \.bin"):
        open_tokens(raw)


@pytest.mark.parametrize(
    ("tokens", "dtype", "error", "match"),
    [
        ([[1, 2], [3, 4]], np.uint16, ValueError, r"tokens must be 1-D, got shape \(2, 2\)"),
        ([1.5, 2.0], np.uint16, TypeError, "tokens must be integers, got dtype float64"),
        (
            [0, 70_000],
            np.uint16,
            ValueError,
            r"tokens range over \[0, 70000\], which dtype uint16 cannot hold",
        ),
        ([-1, 3], np.uint16, ValueError, "which dtype uint16 cannot hold"),
        ([1, 2], np.float32, TypeError, "dtype must be a numpy integer dtype"),
        ([1, 2], "not-a-dtype", TypeError, "dtype must be a numpy integer dtype"),
    ],
)
def test_write_tokens_rejects(
    tmp_path: Path, tokens: Any, dtype: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        write_tokens(tmp_path / "t.bin", tokens, dtype=dtype)


def test_open_tokens_rejects(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"no token file named 'missing\.bin'"):
        open_tokens(tmp_path / "missing.bin")
    (tmp_path / "empty.bin").write_bytes(b"")
    with pytest.raises(ValueError, match=r"empty\.bin is empty"):
        open_tokens(tmp_path / "empty.bin", dtype=np.uint16)
    (tmp_path / "odd.bin").write_bytes(b"\x00" * 7)
    with pytest.raises(ValueError, match="has 7 bytes, not a multiple of 2"):
        open_tokens(tmp_path / "odd.bin", dtype=np.uint16)
    with pytest.raises(TypeError, match="dtype must be a numpy integer dtype"):
        open_tokens(tmp_path / "odd.bin", dtype=np.float16)


def test_batch_shapes_dtype_and_shift(token_file: tuple[Path, np.ndarray]) -> None:
    x, y = get_batch(open_tokens(token_file[0]), batch_size=8, sequence_length=32, device="cpu")
    assert x.shape == y.shape == (8, 32)
    assert x.dtype == y.dtype == torch.int64 and x.device.type == "cpu"
    assert x.is_contiguous() and y.is_contiguous()
    assert torch.equal(y[:, :-1], x[:, 1:])


@given(
    length=st.integers(2, 300),
    batch_size=st.integers(1, 16),
    sequence_length=st.integers(1, 64),
    seed=st.integers(0, 2**31),
)
def test_windows_are_real_slices(length: int, batch_size: int, sequence_length: int, seed: int) -> None:
    sequence_length = min(sequence_length, length - 1)
    data = np.random.default_rng(seed).permutation(length).astype(np.int32)  # distinct ids: starts are unique
    gen = torch.Generator().manual_seed(seed)
    x, y = get_batch(data, batch_size, sequence_length, "cpu", generator=gen)
    for row_x, row_y in zip(x.numpy(), y.numpy(), strict=True):
        start = int(np.flatnonzero(data == row_x[0])[0])
        assert start + sequence_length + 1 <= length
        np.testing.assert_array_equal(row_x, data[start : start + sequence_length])
        np.testing.assert_array_equal(row_y, data[start + 1 : start + sequence_length + 1])


def test_every_start_is_reachable() -> None:
    data = np.arange(6, dtype=np.uint16)  # sequence_length 2: starts 0, 1, 2, 3
    x, _ = get_batch(data, 400, 2, "cpu", generator=torch.Generator().manual_seed(0))
    assert set(x[:, 0].tolist()) == {0, 1, 2, 3}
    x, y = get_batch(data, 3, 5, "cpu")  # the window is the whole array: one possible start
    assert x.tolist() == [[0, 1, 2, 3, 4]] * 3 and y.tolist() == [[1, 2, 3, 4, 5]] * 3


def test_generator_reproducibility(token_file: tuple[Path, np.ndarray]) -> None:
    data = open_tokens(token_file[0])
    a = get_batch(data, 4, 16, "cpu", generator=torch.Generator().manual_seed(1))
    b = get_batch(data, 4, 16, "cpu", generator=torch.Generator().manual_seed(1))
    c = get_batch(data, 4, 16, "cpu", generator=torch.Generator().manual_seed(2))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[0], c[0])
    torch.manual_seed(5)
    d = get_batch(data, 4, 16, "cpu")  # no generator: torch's global one
    torch.manual_seed(5)
    assert torch.equal(d[0], get_batch(data, 4, 16, "cpu")[0])


def test_cuda_path_pins_and_copies_non_blocking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a GPU, record what get_batch asks of the tensor: pin first, then a non-blocking copy."""
    calls: list[tuple[str, Any]] = []

    def fake_pin_memory(self: torch.Tensor) -> torch.Tensor:
        calls.append(("pin_memory", tuple(self.shape)))
        return self

    def fake_to(self: torch.Tensor, device: Any, non_blocking: bool = False) -> torch.Tensor:
        calls.append(("to", (torch.device(device), non_blocking)))
        return self

    monkeypatch.setattr(torch.Tensor, "pin_memory", fake_pin_memory)
    monkeypatch.setattr(torch.Tensor, "to", fake_to)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    x, y = get_batch(np.arange(100, dtype=np.uint16), 4, 8, "cuda:0")
    assert calls == [("pin_memory", (4, 9)), ("to", (torch.device("cuda:0"), True))]
    assert torch.equal(y[:, :-1], x[:, 1:])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_batches_land_on_the_gpu() -> None:
    x, y = get_batch(np.arange(100, dtype=np.uint16), 4, 8, "cuda")
    assert x.device.type == y.device.type == "cuda"
    assert torch.equal(y[:, :-1], x[:, 1:])


@pytest.mark.parametrize(
    ("data", "kwargs", "error", "match"),
    [
        ([1, 2, 3], {}, TypeError, r"data must be a numpy array"),
        (np.zeros((4, 4), np.uint16), {}, ValueError, r"data must be 1-D .*got shape \(4, 4\)"),
        (np.zeros(10, np.float32), {}, TypeError, "data must hold integer token ids, got dtype float32"),
        (np.zeros(8, np.uint16), {}, ValueError, r"sequence_length=8 needs windows of 9 tokens .*only 8"),
        (np.zeros(99, np.uint16), {"batch_size": 0}, ValueError, r"batch_size must be an int in \[1, 2147483647\]"),
        (np.zeros(99, np.uint16), {"batch_size": 2.0}, TypeError, r"batch_size must be an int in \[1, 2147483647\]"),
        (np.zeros(99, np.uint16), {"sequence_length": -3}, ValueError, r"sequence_length must be an int in \[1, "),
        (np.zeros(99, np.uint16), {"generator": 3}, TypeError, "generator must be a torch.Generator or None"),
    ],
)
def test_get_batch_rejects(data: Any, kwargs: dict, error: type[Exception], match: str) -> None:
    args = {"batch_size": 2, "sequence_length": 8, "device": "cpu", **kwargs}
    with pytest.raises(error, match=match):
        get_batch(data, **args)


def test_cuda_without_a_gpu_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15 item 6: it was torch's "Cannot access accelerator device when none is available"."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match=r"device='cuda', but torch .* sees no CUDA device.*device='cpu'"):
        get_batch(np.arange(100, dtype=np.uint16), 4, 8, "cuda")


def test_a_file_with_the_npy_magic_but_no_valid_header_is_named(tmp_path: Path) -> None:
    """Issue 15 item 6: a .dat that starts with the .npy magic gave numpy's "format version (0, 0)"."""
    damaged = tmp_path / "tokens.dat"
    damaged.write_bytes(b"\x93NUMPY" + bytes(100))
    with pytest.raises(ValueError, match=r"tokens\.dat starts with the \.npy magic bytes but its \.npy header"):
        open_tokens(damaged)
    truncated = tmp_path / "cut.dat"
    np.save(tmp_path / "whole.npy", np.arange(1000, dtype=np.uint16))
    truncated.write_bytes((tmp_path / "whole.npy").read_bytes()[:40])
    with pytest.raises(ValueError, match="truncated or damaged"):
        open_tokens(truncated)


_FULL_DISK = """
import resource, signal, sys
import numpy as np
from cs336_lec2.data import write_tokens
path, limit = sys.argv[1], int(sys.argv[2])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit, write() fails with EFBIG like a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    write_tokens(path, np.arange(50_000, dtype=np.uint16))
except OSError as err:
    print("OSError:", err)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE")
def test_a_write_that_runs_out_of_space_leaves_the_old_file_intact(tmp_path: Path) -> None:
    """Issue 15 item 2: overwriting on a full disk left a truncated file that open_tokens accepted."""
    path = tmp_path / "tokens.bin"
    old = np.arange(1000, dtype=np.uint16) % 7
    write_tokens(path, old)
    done = subprocess.run([sys.executable, "-c", _FULL_DISK, str(path), "20000"], capture_output=True, text=True,
                          check=True)
    assert "OSError:" in done.stdout and "tokens.bin" in done.stdout and "untouched" in done.stdout
    assert np.array_equal(open_tokens(path), old)  # not a 20,000-byte prefix of the new tokens
    # No temporary file left behind; the dtype record is the old one, which still applies.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tokens.bin", "tokens.bin.dtype"]


def test_write_tokens_into_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"the folder for token file 'x\.bin' does not exist"):
        write_tokens(tmp_path / "absent" / "x.bin", [1, 2, 3])


# ---- issue 20.6: the dtype travels with the data --------------------------------------------------

def test_a_uint16_file_opened_as_uint32_is_refused(tmp_path: Path) -> None:
    # 20 uint16 tokens are 40 bytes, which uint32 divides: without the record this read 10 wrong tokens.
    path = tmp_path / "t.bin"
    write_tokens(path, np.arange(20), dtype=np.uint16)
    assert (tmp_path / "t.bin.dtype").read_text() == "uint16\n"
    with pytest.raises(ValueError, match=r"t\.bin was written as uint16 \(t\.bin\.dtype\), not uint32"):
        open_tokens(path, dtype=np.uint32)
    np.testing.assert_array_equal(open_tokens(path), np.arange(20))  # the recorded dtype by default
    np.testing.assert_array_equal(open_tokens(path, dtype=np.uint16), np.arange(20))


def test_a_raw_file_without_a_record_needs_a_dtype(tmp_path: Path) -> None:
    path = tmp_path / "train.bin"  # as another tool (nanoGPT) writes it: bytes only
    np.arange(20, dtype=np.uint16).tofile(path)
    with pytest.raises(ValueError, match=r"train\.bin has no train\.bin\.dtype beside it.*pass dtype="):
        open_tokens(path)
    np.testing.assert_array_equal(open_tokens(path, dtype=np.uint16), np.arange(20))


def test_rewriting_at_another_width_updates_the_record(tmp_path: Path) -> None:
    path = tmp_path / "t.bin"
    write_tokens(path, np.arange(20), dtype=np.uint16)
    write_tokens(path, np.arange(70_000, 70_010), dtype=np.uint32)
    np.testing.assert_array_equal(open_tokens(path), np.arange(70_000, 70_010))
    (tmp_path / "t.bin.dtype").write_text("float32\n")
    with pytest.raises(ValueError, match=r"t\.bin\.dtype does not name an integer dtype"):
        open_tokens(path)


def test_a_failed_rewrite_at_another_width_never_misreads(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "t.bin"
    write_tokens(path, np.arange(20), dtype=np.uint16)

    import cs336_lec2.data as data_module

    def full_disk(target, write):
        raise OSError(28, f"writing {target.name} failed (No space left on device)")

    monkeypatch.setattr(data_module, "_write_atomically", full_disk)
    with pytest.raises(OSError, match=r"writing t\.bin failed"):
        write_tokens(path, np.arange(10), dtype=np.uint32)
    monkeypatch.undo()
    # The old bytes are intact; their width is no longer recorded, so guessing is refused.
    with pytest.raises(ValueError, match="token width is unknown"):
        open_tokens(path)
    np.testing.assert_array_equal(open_tokens(path, dtype=np.uint16), np.arange(20))


def test_resident_bytes_grows_only_by_the_pages_read(tmp_path: Path) -> None:
    from cs336_lec2.data import resident_bytes

    path = tmp_path / "tokens.bin"
    nbytes = write_tokens(path, np.arange(2**22, dtype=np.int64) % 50_000)  # 8 MiB of uint16
    linux = sys.platform.startswith("linux")  # per-file counts; elsewhere the whole process's RSS
    assert resident_bytes(path) == 0 or not linux  # not mapped yet
    tokens = open_tokens(path)
    before = resident_bytes(path)
    window = tokens[2**21 : 2**21 + 2**12]  # 8 KiB from the middle
    assert int(window.sum(dtype=np.int64)) == int((np.arange(2**21, 2**21 + 2**12) % 50_000).sum())
    grew = resident_bytes(path) - before
    if linux:
        assert window.nbytes <= grew < nbytes // 2
    assert resident_bytes() > 0  # the process's RSS
    with pytest.raises(TypeError):
        resident_bytes(3)  # type: ignore[arg-type]

"""Hostile PyTorch files built opcode by opcode (third round): a file must not change nnlite
(no BUILD on shared objects), must not hang an error message, must not build more memory than
its size allows, and every failure is a CheckpointError naming the file and the member."""

import io
import struct
import warnings
import zipfile

import numpy as np
import pytest

import nnlite as nl
from nnlite.serialization import CheckpointError, torch_reader

PROTO = b"\x80\x02"


def s(text):
    """BINUNICODE ``text``."""
    raw = text.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


def glob(module, name):
    return f"c{module}\n{name}\n".encode()


def i64(v):
    return b"\x8a\x08" + struct.pack("<q", v)


def tensor_ops(size=(6,), stride=(1,), offset=0, requires_grad=b"\x89", numel=6, key="0"):
    """The opcodes of ``_rebuild_tensor_v2`` on FloatStorage ``key`` (as torch.save writes
    it); ``requires_grad`` is the opcodes of that argument."""

    def tup(values):
        return b"(" + b"".join(i64(v) for v in values) + b"t"

    return (
        glob("torch._utils", "_rebuild_tensor_v2")
        + b"(("
        + s("storage")
        + glob("torch", "FloatStorage")
        + s(key)
        + s("cpu")
        + i64(numel)
        + b"tQ"
        + i64(offset)
        + tup(size)
        + tup(stride)
        + requires_grad
        + glob("collections", "OrderedDict")
        + b")RtR"
    )


def tensor_pickle(extra=b"", **kwargs):
    """A pickle of one tensor (see ``tensor_ops``), after the opcodes ``extra``."""
    return PROTO + extra + tensor_ops(**kwargs) + b"."


def exponential_list(levels=60):
    """Opcodes leaving on the stack a list holding the previous one twice, ``levels`` times:
    2**levels elements, ``levels`` objects (memo 0..levels)."""
    out = bytearray(b"K\x01q\x00")
    for i in range(levels):
        out += b"h" + bytes([i]) + b"h" + bytes([i]) + b"\x86q" + bytes([i + 1])
    return bytes(out)


def torch_zip(path, payload, storages=(), archive="ckpt", marker=False):
    """A zip laid out as torch.save's, ``payload`` as data.pkl."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{archive}/data.pkl", payload)
        zf.writestr(f"{archive}/byteorder", b"little")
        for key, data in storages:
            zf.writestr(f"{archive}/data/{key}", data)
        zf.writestr(f"{archive}/version", b"3\n")
        if marker:
            zf.writestr(f"{archive}/.data/nnlite_writer", b"nnlite\n")
    return path


SIX_FLOATS = [("0", np.arange(6, dtype="<f4").tobytes())]


def assert_refused(path, match, member="ckpt/data.pkl"):
    with pytest.raises(CheckpointError, match=match) as e:
        nl.load(path)
    assert str(path) in str(e.value) and member in str(e.value), str(e.value)
    assert len(str(e.value)) < 2000
    return e.value


# ------------------------------------------------------------------ BUILD on shared objects


def test_the_hand_built_tensor_pickle_loads(tmp_path):
    """The helper's file is a good one: the attacks below differ from it only where they say."""
    path = torch_zip(tmp_path / "ok.pth", tensor_pickle(), SIX_FLOATS)
    np.testing.assert_array_equal(nl.load(path).numpy(), np.arange(6, dtype=np.float32))


def test_build_cannot_retype_nnlites_float32(tmp_path):
    # torch.float32 (nnlite's shared dtype object), then BUILD with slot state {"np": "i1"}
    payload = PROTO + glob("torch", "float32") + b"N}" + s("np") + s("i1") + b"s\x86b."
    path = torch_zip(tmp_path / "retype.pth", payload)
    assert path.stat().st_size < 400
    assert_refused(path, r"refusing to load: .*retype.pth .*BUILD .*dtype")
    assert nl.float32.np == np.dtype("float32")
    assert nl.zeros(2, dtype=nl.float32).numpy().dtype == np.float32
    assert nl.tensor([1, 2]).float().numpy().dtype == np.float32


def test_build_cannot_rewrite_a_rebuild_functions_defaults(tmp_path):
    before = torch_reader._rebuild_tensor_v2.__defaults__
    payload = (
        PROTO
        + glob("torch._utils", "_rebuild_tensor_v2")
        + b"N}"
        + s("__defaults__")
        + b"(\x88NNt"
        + b"s\x86b."
    )
    path = torch_zip(tmp_path / "defaults.pth", payload)
    assert_refused(path, r"defaults.pth .*BUILD can only set the state")
    assert torch_reader._rebuild_tensor_v2.__defaults__ == before
    # and tensors still load with requires_grad=False by default afterwards
    good = torch_zip(tmp_path / "ok.pth", tensor_pickle(), SIX_FLOATS)
    assert not nl.load(good).requires_grad


class Allowed:
    """A class the user allowlists: its instances may be built, the class itself may not."""

    flag = "original"

    def __init__(self):
        self.value = 0


def test_build_on_an_allowlisted_class_itself_is_refused(tmp_path):
    name = Allowed.__module__
    payload = PROTO + glob(name, "Allowed") + b"N}" + s("flag") + s("changed") + b"s\x86b."
    path = torch_zip(tmp_path / "cls.pth", payload)
    with nl.serialization.safe_globals([Allowed]):
        assert_refused(path, r"cls.pth .*BUILD .*not of a type")
    assert Allowed.flag == "original"


def test_build_on_an_allowlisted_instance_works_as_in_pytorch(tmp_path):
    name = Allowed.__module__
    # NEWOBJ Allowed() then BUILD {"value": 3}: what pickle writes for an instance
    payload = PROTO + glob(name, "Allowed") + b")\x81}" + s("value") + b"K\x03sb."
    path = torch_zip(tmp_path / "inst.pth", payload)
    with nl.serialization.safe_globals([Allowed]):
        out = nl.load(path)
    assert type(out) is Allowed and out.value == 3 and Allowed.flag == "original"


def test_pytorch_draws_the_same_line(tmp_path):
    """The oracle: torch.load(weights_only=True) refuses BUILD on torch.float32 and on the
    rebuild function, and builds an allowlisted instance."""
    import pickle

    torch = pytest.importorskip("torch", reason="PyTorch is the oracle")
    for name, payload in [
        ("dtype", PROTO + glob("torch", "float32") + b"N}" + s("x") + s("i1") + b"s\x86b."),
        (
            "function",
            PROTO + glob("torch._utils", "_rebuild_tensor_v2") + b"N}" + s("x") + b"K\x01s\x86b.",
        ),
    ]:
        path = torch_zip(tmp_path / f"{name}.pth", payload)
        with pytest.raises(pickle.UnpicklingError, match="Can only build"):
            torch.load(path, weights_only=True)
    payload = PROTO + glob(Allowed.__module__, "Allowed") + b")\x81}" + s("value") + b"K\x03sb."
    path = torch_zip(tmp_path / "inst.pth", payload)
    with torch.serialization.safe_globals([Allowed]):
        assert torch.load(path, weights_only=True).value == 3


@pytest.mark.parametrize(
    "payload, match",
    [
        # SETITEM into the shared Tensor marker
        (glob("torch", "Tensor") + s("a") + s("b") + b"s.", "SETITEM on a _StorageType"),
        # APPEND onto a set built by the file
        (glob("builtins", "set") + b")R" + b"K\x01a.", "APPEND on a set"),
        # BUILD on the OrderedDict class itself
        (glob("collections", "OrderedDict") + b"}" + s("x") + b"K\x01sb.", "BUILD can only"),
        # NEWOBJ on a name that is not a class the allow-list hands out
        (glob("torch", "Tensor") + b")\x81.", "NEWOBJ may only call"),
        # REDUCE on an object the file built (a set), not a named function
        (glob("builtins", "set") + b")R)R.", "REDUCE may only call"),
    ],
    ids=["setitem-shared", "append-set", "build-class", "newobj-marker", "reduce-object"],
)
def test_opcodes_acting_on_objects_stay_on_what_the_file_built(tmp_path, payload, match):
    path = torch_zip(tmp_path / "ops.pth", PROTO + payload)
    assert_refused(path, match)


# ------------------------------------------------------------------ values cut before formatting


@pytest.mark.parametrize(
    "tail, match",
    [
        # a persistent id of two items, the second 2**60 shared elements
        (s("storage") + b"h\x3c\x86Q.", "unknown persistent id"),
        # a storage record whose key is that list
        (
            b"(" + s("storage") + glob("torch", "FloatStorage") + b"h\x3c" + s("cpu") + b"K\x01tQ.",
            "bad storage record",
        ),
    ],
    ids=["persistent-id", "storage-key"],
)
def test_a_value_of_2_to_the_60_elements_fails_fast(tmp_path, tail, match):
    path = torch_zip(tmp_path / "shared.pth", PROTO + exponential_list() + tail)
    assert path.stat().st_size < 1536
    error = assert_refused(path, match)
    assert "..." in str(error)


def test_requires_grad_of_2_to_the_60_elements_fails_fast(tmp_path):
    payload = tensor_pickle(extra=exponential_list() + b"0", requires_grad=b"h\x3c")
    path = torch_zip(tmp_path / "grad.pth", payload, SIX_FLOATS)
    assert_refused(path, r"requires_grad is \(\(\(\(.*\.\.\.")


def test_an_int_too_long_to_print_is_shown_by_its_size(tmp_path):
    """An int of 80000 bits (24000 digits: Python refuses to turn it into text)."""
    long4 = b"\x8b" + struct.pack("<i", 10_001) + b"\xff" * 10_000 + b"\x00"
    payload = tensor_pickle(extra=long4 + b"q\x00" + b"0", requires_grad=b"h\x00")
    path = torch_zip(tmp_path / "bigint.pth", payload, SIX_FLOATS)
    assert_refused(path, r"requires_grad is <int of 80000 bits>")


# ------------------------------------------------------------------ memory charged to the budget


def test_bytearray_of_a_huge_count_is_refused_before_it_is_built(tmp_path, refused_load):
    payload = PROTO + glob("__builtin__", "bytearray") + b"J\x00\x00\x00\x10\x85R."
    path = torch_zip(tmp_path / "bytes.pth", payload)
    assert path.stat().st_size < 400
    peak = refused_load(path, r"bytes.pth \(ckpt/data.pkl: builtins.bytearray would build more")
    assert peak < 8 << 20


def test_copies_made_by_ordereddict_are_charged(tmp_path, refused_load):
    """A 2000-entry dict copied by OrderedDict(...) 2000 times: 4 million entries, quadratic."""
    entries = b"".join(b"J" + struct.pack("<i", i) + b"N" for i in range(2000))
    payload = bytearray(PROTO + b"}q\x00(" + entries + b"u")
    payload += glob("collections", "OrderedDict") + b"q\x01("
    payload += b"h\x01h\x00\x85R0" * 2000
    payload += b"l."
    path = torch_zip(tmp_path / "odict.pth", bytes(payload))
    peak = refused_load(path, r"odict.pth .*collections.OrderedDict would build more")
    assert peak < 64 << 20


def test_one_ordereddict_copy_of_a_state_dict_still_loads(tmp_path):
    payload = (
        PROTO
        + glob("collections", "OrderedDict")
        + b"]("
        + b"".join(b"(" + s(f"k{i}") + b"K" + bytes([i]) + b"t" for i in range(50))
        + b"e\x85R."
    )
    path = torch_zip(tmp_path / "copy.pth", payload)
    out = nl.load(path)
    assert list(out.items()) == [(f"k{i}", i) for i in range(50)]


def test_many_tensor_placeholders_are_charged(tmp_path):
    """20000 tensors from one memoised call: 5 bytes of pickle each."""
    call = b"(h\x01" + i64(0) + b"(K\x06t(K\x01t\x89)tq\x02"
    payload = bytearray(PROTO + glob("torch._utils", "_rebuild_tensor_v2") + b"q\x00")
    payload += b"(" + s("storage") + glob("torch", "FloatStorage") + s("0") + s("cpu")
    payload += b"K\x06tQq\x01" + b"h\x00" + call + b"R0" + b"(" + b"h\x00h\x02R" * 20000 + b"l."
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("ckpt/data.pkl", bytes(payload))
        zf.writestr("ckpt/data/0", SIX_FLOATS[0][1])
    path = tmp_path / "many.pth"
    path.write_bytes(buf.getvalue())
    assert path.stat().st_size < 4000
    assert_refused(path, r"many.pth .*_rebuild_tensor_v2 would build more")


# ------------------------------------------------------------------ zip members


def test_two_data_pkl_members_are_refused(tmp_path):
    path = tmp_path / "twice.pth"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("ckpt/data.pkl", PROTO + b"K\x01.")
            zf.writestr("ckpt/data.pkl", PROTO + b"K\x02.")
    assert_refused(path, r"refusing to load: .*twice.pth \(member 'ckpt/data.pkl' appears twice")


def test_two_archives_with_a_data_pkl_each_are_refused(tmp_path):
    path = tmp_path / "two.pth"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("a/data.pkl", PROTO + b"K\x01.")
        zf.writestr("b/data.pkl", PROTO + b"K\x02.")
    with pytest.raises(CheckpointError, match=r"two.pth \(it holds 2 pickles .*'b/data.pkl'"):
        nl.load(path)


def _stored_zip(members, aliases):
    """A stored zip of ``members`` (name -> bytes); each ``aliases`` entry (alias, name) adds a
    central directory entry named ``alias`` pointing at ``name``'s local header and data."""
    out = bytearray()
    central = bytearray()
    where = {}
    for name, data in members.items():
        raw = name.encode()
        crc = zipfile.crc32(data)
        where[name] = (len(out), crc, len(data))
        size = len(data)
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, size, size, len(raw), 0)
        out += raw + data
    entries = [(n, n) for n in members] + list(aliases)
    for alias, name in entries:
        offset, crc, size = where[name]
        raw = alias.encode()
        central += struct.pack(
            "<4s6H3L5H2L",
            b"PK\x01\x02",
            20,
            20,
            0,
            0,
            0,
            0,
            crc,
            size,
            size,
            len(raw),
            0,
            0,
            0,
            0,
            0,
            offset,
        )
        central += raw
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central), len(out), 0
    )
    return bytes(out + central + end)


def test_members_sharing_bytes_on_disk_are_refused(tmp_path):
    """Ten storages that are all the same 4 KB on disk: each would read as a full member."""
    block = np.zeros(1024, "<f4").tobytes()
    keys = [str(i) for i in range(10)]
    tensors = b"".join(tensor_ops(size=(1024,), numel=1024, key=k) for k in keys)
    payload = PROTO + b"(" + tensors + b"l."
    members = {"ckpt/data.pkl": payload, "ckpt/data/0": block}
    path = tmp_path / "overlap.pth"
    path.write_bytes(_stored_zip(members, [(f"ckpt/data/{k}", "ckpt/data/0") for k in keys[1:]]))
    with pytest.raises(CheckpointError, match=r"overlap.pth \(members .* overlap in the file"):
        nl.load(path)


def test_the_stored_zip_helper_builds_a_loadable_file(tmp_path):
    path = tmp_path / "plain.pth"
    members = {"ckpt/data.pkl": tensor_pickle(), "ckpt/data/0": SIX_FLOATS[0][1]}
    path.write_bytes(_stored_zip(members, []))
    np.testing.assert_array_equal(nl.load(path).numpy(), np.arange(6, dtype=np.float32))


# ------------------------------------------------------------------ one error type


@pytest.mark.parametrize(
    "payload",
    [
        # a stride of 2**62 on a dimension of size 1 (numpy's OverflowError)
        tensor_pickle(size=(1,), stride=(1 << 62,), numel=6),
        # a zero-size tensor with dimensions whose product overflows (numpy's ValueError)
        tensor_pickle(size=(0, 1 << 40, 1 << 40), stride=(1, 1, 1)),
        # a dict key that cannot be hashed (TypeError)
        PROTO + b"}]]s.",
        # an int of 5000 decimal digits (Python's ValueError on long int strings)
        PROTO + b"L" + b"9" * 5000 + b"L\n.",
        # complex() of text that is not a number (ValueError)
        PROTO + glob("builtins", "complex") + s("x") + b"\x85R.",
        # torch.Size of an int (TypeError)
        PROTO + glob("torch", "Size") + b"K\x05\x85R.",
        # _rebuild_from_type_v2 asked to call torch.Size
        PROTO
        + glob("torch._tensor", "_rebuild_from_type_v2")
        + b"("
        + glob("torch", "Size")
        + glob("torch", "Tensor")
        + b"]\x85Nt"
        + b"R.",
        # a parameter whose data is not a tensor (TypeError)
        PROTO + glob("torch._utils", "_rebuild_parameter") + b"(K\x01\x89Ntr\x00\x00\x00\x00R.",
        # _codecs.encode with another codec
        PROTO + glob("_codecs", "encode") + s("abc") + s("rot13") + b"\x86R.",
        # a memo index read before it is set (KeyError in Python's unpickler)
        PROTO + b"h\x07.",
        # STOP with nothing on the stack (IndexError)
        PROTO + b".",
        # a truncated pickle (EOFError)
        PROTO + b"}q\x00(",
        # bytearray of a negative count
        PROTO + glob("__builtin__", "bytearray") + b"J\xff\xff\xff\xff\x85R.",
        # a tensor whose storage argument is a string (TypeError)
        PROTO + glob("torch._utils", "_rebuild_tensor_v2") + b"(" + s("x") + b"K\x00)))tR.",
    ],
    ids=[
        "huge-stride",
        "huge-empty",
        "unhashable-key",
        "long-int-text",
        "complex-text",
        "size-of-int",
        "from-type-call",
        "parameter-data",
        "codec",
        "memo-get",
        "empty-stop",
        "truncated",
        "negative-bytearray",
        "storage-string",
    ],
)
def test_every_crafted_file_is_a_checkpoint_error(tmp_path, payload):
    path = torch_zip(tmp_path / "crafted.pth", payload, SIX_FLOATS)
    assert_refused(path, "crafted.pth")


def test_weights_only_false_turns_pickle_errors_into_checkpoint_errors(tmp_path):
    path = torch_zip(tmp_path / "broken.pth", PROTO + b"}q\x00(", marker=True)
    with pytest.raises(CheckpointError, match=r"broken.pth \(ckpt/data.pkl: EOFError"):
        nl.load(path, weights_only=False)


# ------------------------------------------------------------------ weights_only=False


def test_weights_only_false_warns_on_a_file_nl_save_did_not_write(tmp_path):
    path = torch_zip(tmp_path / "foreign.pth", tensor_pickle(), SIX_FLOATS)
    with pytest.warns(
        UserWarning, match=r"foreign.pth, which was not written by nl.save.*any code"
    ):
        out = nl.load(path, weights_only=False)
    np.testing.assert_array_equal(out.numpy(), np.arange(6, dtype=np.float32))


def test_weights_only_false_is_quiet_on_files_nl_save_wrote(tmp_path):
    path = tmp_path / "own.pth"
    nl.save({"w": nl.ones(2), "model": nl.nn.Linear(2, 1)}, path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = nl.load(path, weights_only=False)
    assert out["w"].tolist() == [1.0, 1.0]


def test_weights_only_true_never_warns(tmp_path):
    path = torch_zip(tmp_path / "foreign.pth", tensor_pickle(), SIX_FLOATS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nl.load(path)

"""Schema + version -> specialized encode/decode functions, generated as Python source and cached.

Why generated source: a per-version function with every branch on "is this field present, tagged,
nullable, compact in this version" decided at compile time is several times faster than an interpreter
walking the schema per message, and it is readable in a debugger (the source is registered with
``linecache`` under a name like ``<kadmin DescribeGroupsResponse v5>``).

Each (message, version) is compiled twice, lazily: a fast variant, and a *tracing* variant that records
the field path and byte offset as it goes.  The tracing variant only runs after the fast one failed, to
turn a bare ``struct.error`` into a ProtocolError that says where in the message the bytes went wrong.
That split is what lets the fast variant be lean: it checks only what no later operation would catch
(counts larger than the input, before anything is allocated for them), and leaves the rest (None in a
non-nullable field, an int16 length over 32767, reads past the end) to the operation that fails anyway.

Where the time goes, and so the shape of the fast code: a large response is mostly many small structs in
arrays, so struct arrays are inlined (no call per element), the common case of every length or count (one
byte, or a null) is inline and the rest is a helper call, a fixed-width run also unpacks the length that
follows it, strings are Latin-1 slices of the input (see ``emit_fast_varlen_decode``), and the tagged-field
section, empty almost always, is one byte test.  What remains is mostly allocating the result objects.
"""

from __future__ import annotations

import itertools
import keyword
import linecache
import re
import struct
import threading
import uuid
from collections.abc import Callable
from typing import Any

from kadmin.errors import FieldVersionError, SchemaError
from kadmin.protocol import primitives as P
from kadmin.protocol.schema import FIXED_WIDTH, FieldSpec, MessageSpec

_FMT = {"bool": "?", "int8": "b", "int16": "h", "uint16": "H", "int32": "i", "uint32": "I", "int64": "q",
        "float64": "d", "uuid": "16s"}
_INT_RANGES = {"int8": (-(2**7), 2**7 - 1), "int16": (-(2**15), 2**15 - 1), "uint16": (0, 2**16 - 1),
               "int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-(2**63), 2**63 - 1)}


MARKER_NULL = "b'\\xff'"  # untagged nullable struct: int8 -1
MARKER_NULL_TAGGED = "b'\\x00'"  # tagged nullable struct: uvarint 0


class MISSING_TYPE:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING = MISSING_TYPE()


class BadData(Exception):
    """Internal: the bytes are well-formed up to here but say something impossible (null where not allowed...)."""


class NullNotAllowed(Exception):
    """Internal: encode found None in a field that is not nullable in this version."""


def snake_case(name: str) -> str:
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()
    if keyword.iskeyword(s) or s in ("encode", "decode", "to_json", "from_json", "unknown_tagged_fields"):
        s += "_"
    return s


# --------------------------------------------------------------------------------------------------------
# defaults


def default_value(f: FieldSpec, owner: str, struct_classes: dict[str, type]) -> Any:
    """The Python default of a field, as Kafka's generated classes would initialise it.

    Returns MISSING for mutable defaults (lists, structs) that must be created fresh per instance.
    """
    d = f.default
    where = f"{owner}.{f.name}"
    t = f.type
    if t.is_array:
        if d in (None, ""):
            return MISSING
        if d == "null":
            if f.nullable.empty:
                raise SchemaError(f"{where}: default null but the field is never nullable")
            return None
        raise SchemaError(f"{where}: arrays can only default to null or empty")
    if t.is_struct:
        if d == "null":
            if f.nullable.empty:
                raise SchemaError(f"{where}: default null but the field is never nullable")
            return None
        if d not in (None, ""):
            raise SchemaError(f"{where}: structs can only default to null")
        return MISSING
    name = t.name
    if name == "bool":
        if d in (None, ""):
            return False
        if isinstance(d, bool):
            return d
        if d in ("true", "false"):
            return d == "true"
        raise SchemaError(f"{where}: invalid bool default {d!r}")
    if name in _INT_RANGES:
        if d in (None, ""):
            return 0
        try:
            v = d if isinstance(d, int) and not isinstance(d, bool) else int(str(d), 0) if str(d).lower().startswith(
                ("0x", "-0x")) else int(str(d))
        except ValueError:
            raise SchemaError(f"{where}: invalid {name} default {d!r}") from None
        lo, hi = _INT_RANGES[name]
        if not lo <= v <= hi:
            raise SchemaError(f"{where}: default {v} out of range for {name}")
        return v
    if name == "float64":
        if d in (None, ""):
            return 0.0
        try:
            return float(d)
        except (TypeError, ValueError):
            raise SchemaError(f"{where}: invalid float64 default {d!r}") from None
    if name == "string":
        if d == "null":
            if f.nullable.empty:
                raise SchemaError(f"{where}: default null but the field is never nullable")
            return None
        return "" if d is None else str(d)
    if name in ("bytes", "records"):
        if d == "null":
            if f.nullable.empty:
                raise SchemaError(f"{where}: default null but the field is never nullable")
            return None
        if d not in (None, ""):
            raise SchemaError(f"{where}: bytes can only default to null or empty")
        return b""
    if name == "uuid":
        if d in (None, ""):
            return P.ZERO_UUID
        try:
            return P.parse_uuid(str(d))
        except ValueError:
            raise SchemaError(f"{where}: invalid uuid default {d!r}") from None
    raise SchemaError(f"{where}: unknown type {t}")


# --------------------------------------------------------------------------------------------------------
# code generation


class _Src:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.ind = 0
        self.counter = 0

    def __call__(self, line: str) -> None:
        self.lines.append("    " * self.ind + line)

    def tmp(self, prefix: str = "t") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def indent(self) -> _Src:
        self.ind += 1
        return self

    def dedent(self) -> None:
        self.ind -= 1


class Field:
    """A field as the compiled class sees it: the schema spec plus its attribute name and default."""

    __slots__ = ("spec", "attr", "default", "struct_cls")

    def __init__(self, spec: FieldSpec, attr: str, default: Any, struct_cls: type | None) -> None:
        self.spec = spec
        self.attr = attr
        self.default = default
        self.struct_cls = struct_cls


class VersionCodegen:
    """Generates the encode/decode functions of one message at one version."""

    def __init__(self, msg: MessageSpec, top: type, version: int, trace: bool, lazy: int = 0) -> None:
        self.msg = msg
        self.top = top
        self.version = version
        self.flexible = version in msg.flexible
        self.trace = trace
        #: Repeated struct arrays of at least this many elements are decoded on first access (0: never); see
        #: ``emit_repeat_decode``.  The tracing variant decodes everything.
        self.lazy = 0 if trace else lazy
        #: Lines run at the start of the function being generated (the repeat trackers' initial values).
        self.prologue: list[str] | None = None
        self.prologue_at = 0
        self.pending_lazy: list[tuple[str, type]] = []  # (function name, element struct) of lazy arrays
        self.lazy_count = 0  # repeat sites in the struct body being generated
        self.cur_cls: type = top  # the struct whose body is being generated
        self.ns: dict[str, Any] = {}
        self.src = _Src()
        self.done: set[str] = set()
        self.pending: list[type] = []
        self.tags_done: set[str] = set()
        self.pending_tags: list[type] = []
        self.const_count = 0
        self.alloc_args: dict[type, str] = {}  # see ``new_args``
        self.inline_depth = 0
        #: Generating the body of an unrolled element of a short array (see ``emit_short_array_decode``).
        self.unrolled = False
        #: The joint repeat test of an unrolled two-element array (see ``emit_short_array_decode``): handed to
        #: the first element's body (``joint_head``), then to the string place of its first field (``joint_place``).
        self.joint_head: tuple[str, str, str, str, int, str | None] | None = None
        self.joint_place: tuple[str, str, str, str, int, str | None] | None = None
        self.tag_peeked = ""  # see ``emit_fixed_run_decode``
        #: (struct, variable) of an unrolled first element whose tagged-field section the second element's first
        #: string place decodes (see ``emit_short_array_decode``).
        self.left_tags: tuple[type, str] | None = None
        #: An unrolled array whose two-element path leaves its last element's tagged-field section to the next
        #: array's joint test: the variable that then holds that element (else None), and that next array's
        #: (struct, variable); see ``emit_short_array_decode``.  ``folded_joints``: joint tests whose kept bytes
        #: open with such a section's zero byte.
        self.leave_last: str | None = None
        self.fold_prev: tuple[type, str] | None = None
        self.folded_joints: set[str] = set()
        self.obj = "o"  # the decoder's current struct variable
        self.eobj = "o"  # the encoder's

    # --- namespace helpers
    def const(self, value: Any, prefix: str = "K") -> str:
        self.const_count += 1
        name = f"{prefix}{self.const_count}"
        self.ns[name] = value
        return name

    def packer(self, fmt: str) -> str:
        """Name of a bound ``Struct(fmt).pack`` in the generated namespace (bound: saves an attribute lookup)."""
        key = "P_" + fmt.replace(">", "").replace("?", "B_")
        if key not in self.ns:
            self.ns[key] = struct.Struct(fmt).pack
        return key

    def unpacker(self, fmt: str) -> str:
        key = "U_" + fmt.replace(">", "").replace("?", "B_")
        if key not in self.ns:
            self.ns[key] = struct.Struct(fmt).unpack_from
        return key

    def new_args(self, cls: type) -> str:
        """Name of the constant ``(cls,)``: the decoders allocate a struct with ``new(*args)`` (and an array's
        structs with ``starmap(new, repeat(args, n))``), never ``new(cls)``.

        Why: ``object.__new__`` takes its arguments as a tuple (it is a METH_VARARGS builtin), so a call
        ``new(cls)`` builds a 1-tuple, and frees it, on every struct; ``new(*args)`` and ``starmap`` hand it the
        same prebuilt tuple.  The same object comes out (``object.__new__(cls)`` either way) in 55 ns instead of
        75 (an array's elements: 53 ns instead of 69); a quota entry allocates five structs."""
        name = self.alloc_args.get(cls)
        if name is None:
            name = self.alloc_args[cls] = self.const((cls,), "CA")
        return name

    def args_runs(self, args: str) -> str:
        """Name of the constant ``((), (cls,)*1 ... )``: ``runs[k]`` is ``k`` copies of the allocation arguments
        ``args`` (``new_args``), for arrays of fewer than ``_ARGS_RUNS`` structs.

        Why: ``[*starmap(new, runs[k])]`` allocates the k elements of an array without building a ``repeat``
        object and without calling ``list`` (~1,200 instructions less per array, ~12% of a 10-element array's
        allocation: DescribeGroups' member arrays, Metadata's partition arrays); longer arrays, where that is
        little, use ``repeat``.  About 6 KB per struct class and codec."""
        name = f"{args}_RUNS"
        if name not in self.ns:
            self.ns[name] = tuple((self.ns[args],) * k for k in range(_ARGS_RUNS))
        return name

    def fn_name(self, cls: type, kind: str) -> str:
        return f"{kind}_{cls.__name__}"

    def need(self, cls: type) -> None:
        if cls.__name__ not in self.done:
            self.done.add(cls.__name__)
            self.pending.append(cls)

    # --- field facts for this version
    def present(self, f: Field) -> bool:
        return self.version in f.spec.versions

    def tagged(self, f: Field) -> bool:
        return self.flexible and self.version in f.spec.tagged and self.present(f)

    def compact(self, f: Field) -> bool:
        if not self.flexible:
            return False
        return f.spec.flexible is None or self.version in f.spec.flexible

    def nullable(self, f: Field) -> bool:
        return self.version in f.spec.nullable

    def regular_fields(self, cls: type) -> list[Field]:
        """The fields of ``cls`` written in order at this version (present and not tagged)."""
        return [f for f in cls._kfields if self.present(f) and not self.tagged(f)]  # type: ignore[attr-defined]

    # --- generation entry point
    def generate(self) -> tuple[Callable[..., Any], Callable[..., Any]]:
        self.ns.update(
            {
                "ruv": P.read_uvarint,
                "wuv": P.write_uvarint,
                "Truncated": P.Truncated,
                "BadData": BadData,
                "NullNotAllowed": NullNotAllowed,
                "FieldVersionError": FieldVersionError,
                "UUID": uuid.UUID,
                "new": object.__new__,
                "repeat": itertools.repeat,
                "starmap": itertools.starmap,
                "fbits": P.float_bits,
                "spack": struct.pack,
                "sunpack": struct.unpack_from,
                "write_unknown": write_unknown_tags,
                "MISSING": MISSING,
                "lazy_set": _lazy_set,
                "ONE": _ONE_BYTE,
            }
        )
        self.need(self.top)
        while self.pending or self.pending_tags or self.pending_lazy:
            while self.pending:
                cls = self.pending.pop()
                self.gen_encoder(cls)
                self.gen_decoder(cls)
            while self.pending_tags:
                self.gen_tags_decoder(self.pending_tags.pop())
            while self.pending_lazy:
                self.gen_lazy_array(*self.pending_lazy.pop())
        top_dec = self.fn_name(self.top, "dec")
        self.src("def decode_entry(buf, pos, blen):")
        self.src(f"    return {top_dec}(buf, str(buf, 'latin-1'), pos, blen)")
        text = "\n".join(self.src.lines) + "\n"
        filename = f"<kadmin {self.msg.name} v{self.version}{' trace' if self.trace else ''}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        code = compile(text, filename, "exec")
        exec(code, self.ns)
        return self.ns[self.fn_name(self.top, "enc")], self.ns["decode_entry"]

    # ---------------------------------------------------------------------------------------- encoder
    def gen_encoder(self, cls: type) -> None:
        s = self.src
        s(f"def {self.fn_name(cls, 'enc')}(o, out):")
        s.indent()
        if self.trace:
            s("T = TRACE")
            self.ns.setdefault("TRACE", [])
        self.open_prologue()
        self.emit_encoder_body(cls, "o")
        self.close_prologue()
        s.dedent()
        s("")

    def open_prologue(self) -> None:
        self.prologue = []
        self.prologue_at = len(self.src.lines)

    def close_prologue(self) -> None:
        assert self.prologue is not None
        pad = "    " * self.src.ind
        self.src.lines[self.prologue_at:self.prologue_at] = [pad + line for line in self.prologue]
        self.prologue = None

    def emit_encoder_body(self, cls: type, obj: str) -> None:
        """Encode the struct in variable ``obj`` into ``out``: a function body, or on the fast path inlined
        into the loop of a struct array (no call per element).

        The fast variant leaves out the checks that a failing operation makes anyway (None in a
        non-nullable field fails in ``len``/``encode``, an int16 string length over 32767 fails in
        ``struct``); the tracing variant, which only runs after a failure, has them all, so the error
        still says exactly what was wrong and where.
        """
        s = self.src
        saved, self.eobj = self.eobj, obj
        fields: list[Field] = cls._kfields  # type: ignore[attr-defined]
        regular = self.regular_fields(cls)
        # Non-ignorable fields that this version lacks must still hold their default (Kafka refuses to drop them).
        for f in fields:
            if self.present(f) or f.spec.ignorable:
                continue
            self.emit_default_check(f, cls)
        i = 0
        while i < len(regular):
            run = []
            while i < len(regular) and self.is_fixed(regular[i]):
                run.append(regular[i])
                i += 1
            if run:
                self.emit_fixed_run_encode(run)
                continue
            self.emit_encode_field(regular[i], "out")
            i += 1
        if self.flexible:
            self.emit_tagged_encode([f for f in fields if self.tagged(f)])
        else:
            s(f"if {obj}._unknown_tags:")
            s(f"    raise BadData('tagged fields are set but version {self.version} of {self.msg.name} "
              f"is not flexible')")
        self.eobj = saved

    def is_fixed(self, f: Field) -> bool:
        t = f.spec.type
        return not t.is_array and t.name in _FMT and not (t.name == "uuid" and self.nullable(f))

    def emit_default_check(self, f: Field, cls: type) -> None:
        s = self.src
        cond = self.differs_from_default(f, f"{self.eobj}.{f.attr}")
        s(f"if {cond}:")
        s.indent()
        s(f"raise FieldVersionError({self.field_version_msg(f, cls)!r})")
        s.dedent()

    def field_version_msg(self, f: Field, cls: type) -> str:
        where = self.msg.name if cls is self.top else f"{self.msg.name}.{cls.__name__}"
        return (f"{where}.{f.spec.name} is set to a non-default value but version {self.version} of "
                f"{self.msg.name} does not have this field (versions {f.spec.versions}) and it is not ignorable")

    def differs_from_default(self, f: Field, expr: str) -> str:
        d = f.default
        t = f.spec.type
        if d is None:
            return f"{expr} is not None"
        if t.is_array:
            return f"({expr} is None or len({expr}) != 0)"
        if t.is_struct:
            name = self.const(f.struct_cls(), "DEF")  # type: ignore[misc]
            return f"{expr} != {name}"
        if t.name == "float64":
            bits = self.const(P.float_bits(d), "BITS")
            return f"fbits({expr}) != {bits}"
        if isinstance(d, (bool, int, str, bytes)):
            if t.name == "bool":
                return f"bool({expr}) != {d!r}"
            return f"{expr} != {d!r}"
        name = self.const(d, "DEF")
        return f"{expr} != {name}"

    def trace_push(self, label: str, pos_expr: str) -> None:
        if self.trace:
            self.src(f"T.append(({label!r}, {pos_expr}))")

    def trace_pop(self) -> None:
        if self.trace:
            self.src("T.pop()")

    def emit_fixed_run_encode(self, run: list[Field]) -> None:
        s = self.src
        if self.trace:
            for f in run:
                self.trace_push(f.spec.name, "len(out)")
                s(f"out += {self.packer('>' + _FMT[f.spec.type.name])}({self.fixed_value_expr(f)})")
                self.trace_pop()
            return
        fmt = ">" + "".join(_FMT[f.spec.type.name] for f in run)
        args = ", ".join(self.fixed_value_expr(f) for f in run)
        s(f"out += {self.packer(fmt)}({args})")

    def fixed_value_expr(self, f: Field) -> str:
        if f.spec.type.name == "uuid":
            return f"{self.eobj}.{f.attr}.bytes"
        return f"{self.eobj}.{f.attr}"

    def null_encode(self, compact: bool, kind: str) -> str:
        """Bytes that encode null for a string/bytes/array in this encoding."""
        if compact:
            return "b'\\x00'"
        return "b'\\xff\\xff'" if kind == "string" else "b'\\xff\\xff\\xff\\xff'"

    def emit_len(self, n: str, compact: bool, kind: str, out: str) -> None:
        s = self.src
        if compact:
            s(f"if {n} < 127:")
            s(f"    {out}.append({n} + 1)")
            s("else:")
            s(f"    {out} += wuv({n} + 1)")
        elif kind == "string":
            if self.trace:  # the fast variant lets struct refuse the length (it is an int16)
                s(f"if {n} > 32767:")
                s(f"    raise BadData('string of ' + str({n}) + ' bytes is longer than 32767')")
            s(f"{out} += {self.packer('>h')}({n})")
        else:
            s(f"{out} += {self.packer('>i')}({n})")

    def emit_encode_field(self, f: Field, out: str, *, tagged: bool = False, pushed: bool = False) -> None:
        """Encode <obj>.<attr> into ``out`` (a bytearray name). In tagged mode, values are compact and
        nullable structs use the tagged marker (uvarint 0/1)."""
        s = self.src
        t = f.spec.type
        compact = self.compact(f) or tagged
        nullable = self.nullable(f)
        check_null = nullable or self.trace
        v = s.tmp("v")
        if not pushed:
            self.trace_push(f.spec.name, f"len({out})")
        s(f"{v} = {self.eobj}.{f.attr}")
        kind = "array" if t.is_array else ("struct" if t.is_struct else t.name)
        if kind == "struct":
            self.need(f.struct_cls)  # type: ignore[arg-type]
            if check_null:
                self.open_null_guard(v, out, MARKER_NULL_TAGGED if tagged else MARKER_NULL, nullable, f.spec.name)
            if nullable:
                s(f"{out} += b'\\x01'")
            if out == "out" and not self.trace and self.inline_depth < 3:
                self.inline_depth += 1
                self.emit_encoder_body(f.struct_cls, v)  # type: ignore[arg-type]
                self.inline_depth -= 1
            else:
                s(f"{self.fn_name(f.struct_cls, 'enc')}({v}, {out})")  # type: ignore[arg-type]
            if check_null:
                s.dedent()
            if not pushed:
                self.trace_pop()
            return
        if kind in ("bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "uuid"):
            if kind == "uuid" and nullable:
                # Kafka has no nullable uuid on the wire; null is written as the zero uuid.
                s(f"{out} += ({v} or UUID(int=0)).bytes")
            elif kind == "uuid":
                s(f"{out} += {v}.bytes")
            else:
                s(f"{out} += {self.packer('>' + _FMT[kind])}({v})")
            if not pushed:
                self.trace_pop()
            return
        if check_null:
            self.open_null_guard(v, out, self.null_encode(compact, "string" if kind == "string" else "x"), nullable,
                                 f.spec.name)
        n = s.tmp("n")
        if kind == "string":
            b = s.tmp("b")
            s(f"{b} = {v}.encode('utf-8')")
            s(f"{n} = len({b})")
            self.emit_len(n, compact, "string", out)
            s(f"{out} += {b}")
        elif kind in ("bytes", "records"):
            s(f"{n} = len({v})")
            self.emit_len(n, compact, "bytes", out)
            s(f"{out} += {v}")
        else:  # array
            if t.name == "string":
                # A str is iterable, so without this a single name would be written as one-letter names.
                s(f"if {v}.__class__ is str:")
                s("    raise BadData('expected a list of strings, got a str')")
            s(f"{n} = len({v})")
            self.emit_len(n, compact, "array", out)
            self.emit_array_elements(f, v, n, compact, out)
        if check_null:
            s.dedent()
        if not pushed:
            self.trace_pop()

    def open_null_guard(self, v: str, out: str, null_bytes: str, nullable: bool, name: str) -> None:
        """Emit "if v is None: <write null or refuse> else:" and leave the else-branch open (indented)."""
        s = self.src
        s(f"if {v} is None:")
        s.indent()
        if nullable:
            s(f"{out} += {null_bytes}")
        else:
            s(f"raise NullNotAllowed({name!r})")
        s.dedent()
        s("else:")
        s.indent()

    def emit_array_elements(self, f: Field, v: str, n: str, compact: bool, out: str) -> None:
        s = self.src
        et = f.spec.type.name
        if f.spec.type.is_struct:
            self.need(f.struct_cls)  # type: ignore[arg-type]
            fn = self.fn_name(f.struct_cls, "enc")  # type: ignore[arg-type]
            e = s.tmp("e")
            if self.trace:
                i = s.tmp("i")
                s(f"for {i}, {e} in enumerate({v}):")
                s(f"    T.append(({i}, len({out})))")
                s(f"    {fn}({e}, {out})")
                s("    T.pop()")
            elif out == "out" and self.inline_depth < 3:
                repeat = self.inline_depth >= 1 and self.prologue is not None
                if repeat:
                    # Inside an array loop: a list object that is the same one as the last encoded at this place
                    # (a response whose entries share one list, as a broker's answers for topics with the same
                    # configs do) is copied from the bytes already written instead of encoded again.  Sound
                    # because encoding is a function of the objects, which nothing changes during one encode.
                    pv, ps, pe, st = s.tmp("pv"), s.tmp("ps"), s.tmp("pe"), s.tmp("st")
                    self.prologue += [f"{pv} = MISSING", f"{ps} = {pe} = 0"]  # type: ignore[operator]
                    s(f"if {v} is {pv}:")
                    s(f"    out += out[{ps}:{pe}]")
                    s("else:")
                    s.indent()
                    s(f"{st} = len(out)")
                s(f"for {e} in {v}:")
                s.indent()
                self.inline_depth += 1
                self.emit_encoder_body(f.struct_cls, e)  # type: ignore[arg-type]
                self.inline_depth -= 1
                s.dedent()
                if repeat:
                    s(f"{pv}, {ps}, {pe} = {v}, {st}, len(out)")
                    s.dedent()
            else:
                s(f"for {e} in {v}:")
                s(f"    {fn}({e}, {out})")
            return
        if et in ("bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64"):
            if self.trace:
                e, i = s.tmp("e"), s.tmp("i")
                s(f"for {i}, {e} in enumerate({v}):")
                s(f"    T.append(({i}, len({out})))")
                s(f"    {out} += {self.packer('>' + _FMT[et])}({e})")
                s("    T.pop()")
                return
            pa = f"PA_{_FMT[et].replace('?', 'B_')}"
            self.ns.setdefault(pa, _array_packers(_FMT[et]))
            s(f"if {n} < {_ARRAY_UNPACKERS}:")
            s(f"    {out} += {pa}[{n}](*{v})")
            s("else:")
            s(f"    {out} += spack('>%d{_FMT[et]}' % {n}, *{v})")
            return
        e = s.tmp("e")
        if self.trace:
            i = s.tmp("i")
            s(f"for {i}, {e} in enumerate({v}):")
            s.indent()
            s(f"T.append(({i}, len({out})))")
        else:
            s(f"for {e} in {v}:")
            s.indent()
        if et == "uuid":
            s(f"{out} += {e}.bytes")
        elif et == "string":
            b = s.tmp("b")
            m = s.tmp("m")
            s(f"{b} = {e}.encode('utf-8')")
            s(f"{m} = len({b})")
            self.emit_len(m, compact, "string", out)
            s(f"{out} += {b}")
        elif et in ("bytes", "records"):
            m = s.tmp("m")
            s(f"{m} = len({e})")
            self.emit_len(m, compact, "bytes", out)
            s(f"{out} += {e}")
        else:
            raise SchemaError(f"{self.msg.name}.{f.spec.name}: unsupported array element type {et}")
        if self.trace:
            s("T.pop()")
        s.dedent()

    def emit_tagged_encode(self, tagged: list[Field]) -> None:
        s = self.src
        o = self.eobj
        if not tagged:
            s(f"if {o}._unknown_tags:")
            s(f"    write_unknown(None, {o}._unknown_tags, out)")
            s("else:")
            s("    out.append(0)")
            return
        tf = s.tmp("tf")
        s(f"{tf} = None")
        for f in sorted(tagged, key=lambda x: x.spec.tag):  # type: ignore[arg-type,return-value]
            # Pushed before the default comparison: a value that cannot even be compared is this field's fault.
            self.trace_push(f.spec.name, "len(out)")
            cond = self.differs_from_default(f, f"{o}.{f.attr}")
            s(f"if {cond}:")
            s.indent()
            tb = s.tmp("tb")
            s(f"{tb} = bytearray()")
            self.emit_encode_field(f, tb, tagged=True, pushed=True)
            s(f"if {tf} is None:")
            s(f"    {tf} = []")
            s(f"{tf}.append(({f.spec.tag}, {tb}))")
            s.dedent()
            self.trace_pop()
        s(f"if {tf} is None and not {o}._unknown_tags:")
        s("    out.append(0)")
        s("else:")
        s(f"    write_unknown({tf}, {o}._unknown_tags, out)")

    # ---------------------------------------------------------------------------------------- decoder
    def gen_decoder(self, cls: type) -> None:
        s = self.src
        s(f"def {self.fn_name(cls, 'dec')}(buf, sbuf, pos, blen):")
        s.indent()
        if self.trace:
            s("T = TRACE")
        self.open_prologue()
        self.emit_decoder_body(cls, "o")
        self.close_prologue()
        if not self.trace:
            s("if pos > blen:")
            s(f"    raise Truncated('{cls.__name__} runs past the end of the input')")
        s("return o, pos")
        s.dedent()
        s("")

    def emit_decoder_body(self, cls: type, obj: str, head_peeked: str | None = None,
                          tail_peek: Field | None = None, *, allocated: bool = False, leave_tags: bool = False,
                          fold_tags: tuple[type, str] | None = None, loop_next: str | None = None) -> str | None:
        """Decode one struct into the variable ``obj``; used for function bodies and, on the fast path,
        inlined into the loop of a struct array (no call, no tuple, per element).

        ``head_peeked``: a variable that already holds the prefix of the first field.  ``tail_peek``: a
        field known to follow this struct (the next element of an unrolled array); a fixed-width run at
        the end of the struct then reads that field's prefix too, and the variable is returned.
        ``allocated``: ``obj`` already holds a fresh instance (see ``emit_decode_array_elements``).  ``leave_tags``:
        a tagged-field section that would be read on its own is left to the next struct's first string place
        (``self.left_tags``); ``fold_tags``: such a section, handed to this struct's first field.  ``loop_next``:
        the variable that must hold the byte after this struct when it ends (``carries_next``)."""
        s = self.src
        saved, self.obj = getattr(self, "obj", "o"), obj
        joint, self.joint_head = self.joint_head, None
        fields: list[Field] = cls._kfields  # type: ignore[attr-defined]
        if not allocated:
            s(f"{obj} = new(*{self.new_args(cls)})")
        saved_lazy_count, saved_cls = self.lazy_count, self.cur_cls
        self.cur_cls = cls
        self.lazy_count = sum(1 for f in self.regular_fields(cls) if self.repeat_site(f))
        for f in fields:
            if not self.present(f) or self.tagged(f):
                self.emit_set_default(f)
        regular = self.regular_fields(cls)
        i = 0
        peeked: str | None = head_peeked
        tags_after: str | None = None  # the variable holding the byte after the last field's length, if peeked
        tags_read = False  # the last field read the tagged-field section (``emit_peeking_bytes_decode``)
        skip = 0  # bytes of the last fixed-width run that ``pos`` is not yet past (see ``defers_advance``)
        tail: str | None = None
        while i < len(regular):
            run = []
            while i < len(regular) and self.is_fixed(regular[i]):
                run.append(regular[i])
                i += 1
            if run:
                tags_after = None
                if i < len(regular) or self.flexible:
                    nxt = regular[i] if i < len(regular) else None
                    peek = self.peek_code(nxt)
                    defer = self.defers_advance(nxt, peek)
                    # A nullable compact string (or bytes) that ends the struct: the run also reads the byte after
                    # its length, which for a null is the tagged-field byte (see ``emit_fast_varlen_decode``).
                    tag_peek = (defer and self.flexible and not self.unrolled and nxt is not None
                                and i == len(regular) - 1 and self.nullable(nxt) and self.compact(nxt))
                    peeked = self.emit_fixed_run_decode(run, peek, advance=not defer, tag_peek=tag_peek)
                    if tag_peek:
                        tags_after = self.tag_peeked
                    skip = fixed_run_size(run) if defer else 0
                else:
                    tail = self.emit_fixed_run_decode(run, self.peek_code(tail_peek) if tail_peek else None)
                continue
            if joint and i == 0:
                # The joint test of the array matched (``hj`` is the end of this string): the string is the kept
                # one.  Otherwise move past the count (compact: only peeked) and read the field as usual.
                cj, lj, sj, hj, _, step = joint
                s(f"if {hj}:")
                s(f"    {obj}.{store_attr(regular[i])} = {sj}")
                s(f"    pos = {hj}")
                s("else:")
                s.indent()
                if step:
                    s(step)
                self.joint_place = joint
                self.emit_decode_field(regular[i], f"{obj}.{store_attr(regular[i])}", peeked=peeked, skip=skip)
                self.joint_place = None
                s.dedent()
            elif tags_after:
                self.emit_decode_field(regular[i], f"{obj}.{store_attr(regular[i])}", peeked=peeked, skip=skip,
                                       tags_after=(cls, tags_after))
            elif self.peeks_after(regular[i], regular[i + 1] if i + 1 < len(regular) else None):
                ends = i + 1 == len(regular)
                also = loop_next if ends else None
                nxt_peeked, short = self.emit_peeking_bytes_decode(
                    regular[i], f"{obj}.{store_attr(regular[i])}", peeked, skip, ends, also)
                i += 1
                if also:
                    loop_next = None  # read with the field; after tagged fields, read again
                if ends:  # the byte after is the tagged-field section's, and ``pos`` is ``short`` before it
                    self.emit_tagged_decode(cls, nxt_peeked, short=short, reread=also)
                    tags_read = True
                    peeked, skip = None, 0
                else:
                    peeked, skip = nxt_peeked, 0
                continue
            else:
                if self.folds_into_next(regular[i], regular[i + 1] if i + 1 < len(regular) else None):
                    self.leave_last = s.tmp("lt")
                    carry = self.leave_last
                else:
                    carry = None
                self.emit_decode_field(regular[i], f"{obj}.{store_attr(regular[i])}", peeked=peeked, skip=skip,
                                       fold_tags=fold_tags if i == 0 else None)
                self.leave_last = None
                if carry:  # the next field, an unrolled array, reads the section left in ``carry`` (or None)
                    self.fold_prev = (regular[i].struct_cls, carry)  # type: ignore[assignment]
            peeked = None
            skip = 0
            i += 1
        if tags_after or tags_read:
            pass  # the last field's paths decoded the tagged-field section (``emit_fast_varlen_decode``, ...)
        elif self.flexible and leave_tags and peeked is None and not skip:
            self.left_tags = (cls, obj)
        elif self.flexible:
            self.emit_tagged_decode(cls, peeked, skip)
        else:
            s(f"{obj}._unknown_tags = None")
        if loop_next:  # (not as generated: ``carries_next`` checked the last field reads it)
            s(f"{loop_next} = buf[pos]")
        self.obj = saved
        self.lazy_count, self.cur_cls = saved_lazy_count, saved_cls
        return tail

    def emit_set_default(self, f: Field) -> None:
        s = self.src
        if f.default is MISSING:
            if f.spec.type.is_array:
                s(f"{self.obj}.{f.attr} = []")
            else:
                s(f"{self.obj}.{f.attr} = {self.const(f.struct_cls, 'C')}()")
        elif f.default is None or isinstance(f.default, (bool, int, float, str, bytes)) and not (
                isinstance(f.default, float) and f.default != f.default):
            s(f"{self.obj}.{f.attr} = {f.default!r}")
        else:
            s(f"{self.obj}.{f.attr} = {self.const(f.default, 'DEF')}")

    def peek_code(self, nxt: Field | None) -> str | None:
        """The struct code for the length or count that opens ``nxt`` (None: the tagged-field section),
        if the fast path starts by reading it: a fixed-width run just before then reads it in the same
        ``unpack_from`` call, which saves a separate read per field.  A peek never reads past a valid
        message: whatever follows the run is at least as long as the peeked prefix."""
        if self.trace:
            return None
        if nxt is None:
            return "B" if self.flexible else None
        t = nxt.spec.type
        compact = self.compact(nxt)
        if t.is_array or t.name in ("string", "bytes", "records"):
            if compact:
                return "B"
            return "H" if t.name == "string" and not t.is_array else "i"
        return None

    def defers_advance(self, nxt: Field | None, peek: str | None) -> bool:
        """Whether the fixed-width run before ``nxt`` leaves ``pos`` where it was, for ``nxt`` to add the run's
        size in an addition it makes anyway.

        Why: every ``pos += k`` past 256 allocates a new int (and frees the old one), about as much as a
        struct field store.  The peeked string or bytes after a run (a coordinator's host after its node id,
        the error message after a port and error code) or the tagged-field byte after one (a quota value's
        double) computes its start from ``pos`` in any case: adding the run's size there costs nothing extra.
        Only for those consumers, which handle ``skip`` on every path (see ``emit_fast_varlen_decode``,
        ``emit_tagged_decode``); arrays and structs after a run get ``pos`` advanced as before."""
        if peek is None or self.trace:
            return False
        if nxt is None:
            return self.flexible
        t = nxt.spec.type
        return not t.is_array and t.name in ("string", "bytes", "records")

    def emit_fixed_run_decode(self, run: list[Field], peek: str | None = None, *, advance: bool = True,
                              tag_peek: bool = False) -> str | None:
        """Unpack a run of fixed-width fields with one call; returns the variable holding the peeked
        prefix of the next field, if ``peek`` asked for one.  ``advance=False``: ``pos`` stays at the start of
        the run, and the next field adds its size (``defers_advance``)."""
        s = self.src
        if self.trace:
            for f in run:
                self.emit_fixed_run_decode_one(f)
            return None
        fmt = ">" + "".join(_FMT[f.spec.type.name] for f in run)
        size = struct.calcsize(fmt)
        targets = []
        post = []
        for f in run:
            if f.spec.type.name == "uuid":
                tmp = s.tmp("u")
                targets.append(tmp)
                post.append(f"{self.obj}.{f.attr} = {self.uuid_of()}({tmp})")
            else:
                targets.append(f"{self.obj}.{f.attr}")
        peeked = None
        if peek:
            peeked = s.tmp("pk")
            targets.append(peeked)
            fmt += peek
        if tag_peek:  # one byte more: left in ``self.tag_peeked``
            self.tag_peeked = s.tmp("tg")
            targets.append(self.tag_peeked)
            fmt += "B"
        s(f"{', '.join(targets)}, = {self.unpacker(fmt)}(buf, pos)")
        if advance:
            s(f"pos += {size}")
        for line in post:
            s(line)
        return peeked

    def uuid_of(self) -> str:
        """The function that makes a UUID of 16 bytes: ``_uuid_of_bytes`` on the fast path, ``UUID(bytes=...)``
        (with its checks) in the tracing variant, so that the reference decoder stays an independent reading."""
        if self.trace:
            self.ns["uuid_bytes"] = lambda b: uuid.UUID(bytes=b)
            return "uuid_bytes"
        self.ns["uuid_bytes"] = _uuid_of_bytes
        return "uuid_bytes"

    def emit_fixed_run_decode_one(self, f: Field) -> None:
        s = self.src
        self.trace_push(f.spec.name, "pos")
        fmt = ">" + _FMT[f.spec.type.name]
        if f.spec.type.name == "uuid":
            s(f"{self.obj}.{f.attr} = {self.uuid_of()}({self.unpacker(fmt)}(buf, pos)[0])")
        else:
            s(f"{self.obj}.{f.attr}, = {self.unpacker(fmt)}(buf, pos)")
        s(f"pos += {struct.calcsize(fmt)}")
        self.trace_pop()

    def emit_read_len(self, n: str, compact: bool, kind: str) -> None:
        """Read a length/count into n; -1 means null."""
        s = self.src
        if compact:
            s(f"{n} = buf[pos]")
            s(f"if {n} < 128:")
            s("    pos += 1")
            s("else:")
            s(f"    {n}, pos = ruv(buf, pos)")
            s(f"{n} -= 1")
        elif kind == "string":
            s(f"{n}, = {self.unpacker('>h')}(buf, pos)")
            s("pos += 2")
        else:
            s(f"{n}, = {self.unpacker('>i')}(buf, pos)")
            s("pos += 4")

    def emit_decode_field(self, f: Field, target: str, *, tagged: bool = False, peeked: str | None = None,
                          skip: int = 0, tags_after: tuple[type, str] | None = None,
                          fold_tags: tuple[type, str] | None = None) -> None:
        """Decode one field into ``target``.  ``skip``: ``pos`` is still that many bytes before the field (only
        with ``peeked``, for the kinds ``defers_advance`` allows).  ``fold_tags``: the tagged-field section of the
        struct before, still to read (see ``emit_short_array_decode``)."""
        s = self.src
        t = f.spec.type
        compact = self.compact(f) or tagged
        nullable = self.nullable(f)
        kind = "array" if t.is_array else ("struct" if t.is_struct else t.name)
        self.trace_push(f.spec.name, "pos")
        if kind == "struct":
            self.need(f.struct_cls)  # type: ignore[arg-type]
            fn = self.fn_name(f.struct_cls, "dec")  # type: ignore[arg-type]
            if nullable:
                m = s.tmp("m")
                s(f"{m} = buf[pos]")
                s("pos += 1")
                # Untagged: int8 marker, negative = null.  Tagged: uvarint 0 = null, 1 = present; a
                # "negative" (high-bit) marker is read as null too.
                null_cond = f"{m} == 0 or {m} >= 128" if tagged else f"{m} >= 128"
                s(f"if {null_cond}:")
                s(f"    {target} = None")
                s("else:")
                s(f"    {target}, pos = {fn}(buf, sbuf, pos, blen)")
            else:
                s(f"{target}, pos = {fn}(buf, sbuf, pos, blen)")
            self.trace_pop()
            return
        if kind in _FMT:
            fmt = ">" + _FMT[kind]
            if kind == "uuid":
                s(f"{target} = {self.uuid_of()}({self.unpacker(fmt)}(buf, pos)[0])")
            else:
                s(f"{target}, = {self.unpacker(fmt)}(buf, pos)")
            s(f"pos += {struct.calcsize(fmt)}")
            self.trace_pop()
            return
        if fold_tags and (kind != "string" or self.trace):  # only a string place reads it (never, as generated)
            self.emit_left_tags(fold_tags)
            fold_tags = None
        if kind in ("string", "bytes", "records") and not self.trace:
            self.emit_fast_varlen_decode(kind, target, compact, nullable, f.spec.name, peeked, skip, tags_after,
                                         fold_tags)
            self.trace_pop()
            return
        if kind == "array" and not self.trace:
            self.emit_fast_array_decode(f, target, compact, nullable, peeked)
            self.trace_pop()
            return
        n = s.tmp("n")
        self.emit_read_len(n, compact, "string" if kind == "string" else "x")
        s(f"if {n} < 0:")
        s.indent()
        if nullable:
            s(f"{target} = None")
        else:
            s(f"raise BadData('null value in non-nullable field {f.spec.name}')")
        s.dedent()
        s("else:")
        s.indent()
        if kind in ("string", "bytes", "records"):
            e = s.tmp("end")
            s(f"{e} = pos + {n}")
            s(f"if {e} > blen:")
            s(f"    raise Truncated('{kind} of ' + str({n}) + ' bytes runs past the end of the input')")
            if kind == "string":
                s(f"{target} = buf[pos:{e}].decode('utf-8')")
            else:
                s(f"{target} = buf[pos:{e}]")
            s(f"pos = {e}")
        else:
            s(f"if {n} > blen - pos:")
            s(f"    raise Truncated('array count ' + str({n}) + ' is larger than the bytes that remain')")
            self.emit_decode_array_elements(f, target, n, compact)
        s.dedent()
        self.trace_pop()

    def emit_fast_varlen_decode(self, kind: str, target: str, compact: bool, nullable: bool, name: str,
                                peeked: str | None = None, skip: int = 0,
                                tags_after: tuple[type, str] | None = None,
                                fold_tags: tuple[type, str] | None = None) -> None:
        """Strings and bytes on the fast path: the common cases (a short value, a null) inline, everything
        else (long compact lengths, nulls where not allowed, bad lengths) in a helper.

        No bounds check here: slicing past the end cannot fail, but ``pos`` only grows, so the single
        ``pos > blen`` check at the end of the struct catches any overrun.

        Strings are sliced out of ``sbuf``, the whole input decoded once as Latin-1: that is one slice
        per string instead of a bytes slice plus a UTF-8 decode.  Latin-1 maps each byte to one
        character, so offsets agree, and a slice that is ASCII is exactly what UTF-8 would give; any other
        slice is decoded again as UTF-8 from the bytes (which also refuses invalid UTF-8).

        At an unrolled place (an element of a one- or two-element array, ``emit_short_array_decode``) the
        same field of the next parent often carries the same string: a quota entry's entity types and keys
        ("user", "producer_byte_rate") come back entry after entry.  Once a place has read the same ASCII
        string twice in a row, its bytes (length prefix included) are kept, and while the input repeats them
        (a slice of that length compared with them: a memcmp) that string is taken again without decoding or
        checking it; equal bytes decode to an equal string, so nothing else can tell.  The test is a slice and
        ``==`` rather than ``buf.startswith(kept, pos)``: ``startswith`` parses its arguments from a tuple
        with a format string, which costs more than allocating the slice (quotas v0 ~5% faster in all).  A
        place whose strings differ each time (names) stops watching after ``_REUSE_TRIES`` such strings in a
        row, and from then on pays one test of a local per string (before: a comparison of two strings and
        two stores per string, ~3% of a quota answer).  Only unrolled places: in the loops of big arrays
        (topics, members, coordinators) consecutive elements are different things, and measured, the
        comparison cost more there than the repeats gained.

        ``skip``: ``pos`` is still that many bytes short of the length (the fixed-width run before it left the
        advance to this field, see ``defers_advance``); every path below adds it exactly once.

        ``tags_after`` (struct, variable): this field ends a flexible struct and the run before it also read the
        byte after its length.  For a null that byte is the tagged-field byte, so the null path finishes the
        struct without another read or a separate ``pos += 1`` (a coordinator's null error message: ~4% of a
        FindCoordinator answer); every path then decodes the tagged-field section itself.

        ``fold_tags`` (struct, variable): the tagged-field section of the struct just before (the first element of
        an unrolled two-element array, ``emit_short_array_decode``) is still to read, at ``pos``.  At a repeat place
        the kept bytes then open with that section's empty form (one zero byte): a match also says the section is
        empty, and costs no subscript and no ``pos += 1`` of its own (a quota entry's second entity component: ~2%
        of a DescribeClientQuotas v1 answer); otherwise the section is read as usual before the string.
        """
        s = self.src
        n = peeked or s.tmp("n")
        slow = self.const(_slow_reader(kind, compact, nullable, name), "RD")
        # Only where the unrolled array sits in an inlined loop (depth 2): one call of a per-struct decoder
        # reads one parent, so its places never see a repeat.
        reuse = kind == "string" and self.unrolled and self.inline_depth >= 2 and self.prologue is not None
        # The joint test of the array this place opens (``emit_short_array_decode``) keeps the count's bytes and
        # this place's: set whenever this place takes a kept string, dropped when it reads a different one.
        joint, self.joint_place = self.joint_place, None
        if not reuse:
            joint = None
        if fold_tags and (not reuse or joint or skip or peeked or tags_after):
            self.emit_left_tags(fold_tags)  # (not as generated: the second element's head has none of these)
            fold_tags = None
        if reuse and skip:  # the repeat test compares at ``pos``
            s(f"pos += {skip}")
            skip = 0
        def keep_joint(indent: str, start: str, end: str, value: str) -> None:
            # The joint test keeps the count's bytes before ``start`` through this string's ``end``, and its value.
            assert joint is not None
            cj, lj, sj, _, cnt, _ = joint
            zero = "b'\\x00' + " if cj in self.folded_joints else ""
            s(f"{indent}{cj} = {zero}buf[{start} - {cnt}:{end}]")
            s(f"{indent}{lj} = len({cj})")
            s(f"{indent}{sj} = {value}")

        if reuse:
            ch, cs, lc, tk = s.tmp("ch"), s.tmp("cs"), s.tmp("lc"), s.tmp("tk")
            self.prologue += [f"{ch} = {cs} = None", f"{lc} = 0", f"{tk} = {_REUSE_TRIES}"]  # type: ignore[operator]
            he = s.tmp("he")
            s(f"if {ch} is not None and buf[pos:({he} := pos + {lc})] == {ch}:")
            if fold_tags:  # the kept bytes' zero byte was the section before
                s(f"    {fold_tags[1]}._unknown_tags = None")
            s(f"    {target} = {cs}")
            if joint:
                keep_joint("    ", "pos", he, cs)
            s(f"    pos = {he}")
            s("else:")
            s.indent()
            if fold_tags:
                self.emit_left_tags(fold_tags)

        def take(start: str, end: str = n, head: str = "") -> None:
            if kind == "string":
                st = s.tmp("st")
                s(f"    {target} = {st} = sbuf[{start}:{end}]")
                s(f"    if not {st}.isascii():")
                s(f"        {target} = buf[{start}:{end}].decode('utf-8')")
                if reuse:
                    s(f"    elif {tk}:")
                    s(f"        if {st} == {cs}:")
                    kept = f"b'\\x00' + buf[{head}:{end}]" if fold_tags else f"buf[{head}:{end}]"
                    s(f"            {ch} = {kept}")
                    s(f"            {lc} = len({ch})")
                    s(f"            {tk} = {_REUSE_TRIES}")
                    if joint:
                        keep_joint("            ", head, end, st)
                    s("        else:")
                    s(f"            {cs} = {st}")
                    s(f"            {ch} = None")
                    s(f"            {tk} -= 1")
                    if joint:
                        s(f"            {joint[0]} = None")
            else:
                s(f"    {target} = buf[{start}:{end}]")

        def tags_here() -> None:
            if tags_after:
                s.indent()
                self.emit_tagged_decode(tags_after[0])
                s.dedent()

        if tags_after and (reuse or not compact or not nullable):
            raise AssertionError("tags_after is only for a nullable compact field at a place without repeats")
        if compact:
            if not peeked:
                s(f"{n} = buf[pos]")
            if nullable:  # null first: two comparisons for a value either way, one instead of three for null
                s(f"if {n} == 0:")
                s(f"    {target} = None")
                if tags_after:  # the peeked byte after the null is the tagged-field byte
                    s.indent()
                    self.emit_tagged_decode(tags_after[0], tags_after[1], 1 + skip)
                    s.dedent()
                else:
                    s(f"    pos += {1 + skip}")
                s(f"elif {n} < 128:")
            else:
                s(f"if ONE[{n}]:")
            p = s.tmp("p")
            s(f"    {p} = pos + {1 + skip}")
            s(f"    pos += {n} + {skip}" if skip else f"    pos += {n}")
            take(p, "pos", f"{p} - 1")
            tags_here()
        elif kind == "string" and not peeked:
            # Nearly every string is shorter than 256 bytes: a zero high byte is one subscript and proves
            # the length is the low byte; longer strings and bad lengths go to the helper.
            p = s.tmp("p")
            s("if not buf[pos]:")
            s(f"    {p} = pos + 2")
            s(f"    pos = {p} + buf[pos + 1]")
            take(p, "pos", f"{p} - 2")
            if nullable:
                s("elif buf[pos + 1] == 255 and buf[pos] == 255:")
                s(f"    {target} = None")
                s("    pos += 2")
        elif kind == "string":
            p = s.tmp("p")
            s(f"if {n} < 0x8000:")
            s(f"    {p} = pos + {2 + skip}")
            s(f"    pos = {p} + {n}")
            take(p, "pos", f"{p} - 2")
            if nullable:
                s(f"elif {n} == 0xffff:")
                s(f"    {target} = None")
                s(f"    pos += {2 + skip}")
        else:
            if not peeked:
                s(f"{n}, = {self.unpacker('>i')}(buf, pos)")
            p = s.tmp("p")
            s(f"if {n} >= 0:")
            s(f"    {p} = pos + {4 + skip}")
            s(f"    pos = {p} + {n}")
            take(p, "pos")
            if nullable:
                s(f"elif {n} == -1:")
                s(f"    {target} = None")
                s(f"    pos += {4 + skip}")
        s("else:")
        s(f"    {target}, pos = {slow}(buf, pos + {skip})" if skip else f"    {target}, pos = {slow}(buf, pos)")
        tags_here()
        if reuse:
            s.dedent()

    def carries_next(self, cls: type) -> bool:
        """Whether the inlined loop over an array of ``cls`` carries each element's first byte from the element
        before: in a flexible struct, when ``cls`` opens with a compact length or count and ends with a compact
        bytes field (which reads the bytes after it anyway, ``emit_peeking_bytes_decode``)."""
        regular = self.regular_fields(cls)
        if self.trace or not self.flexible or not regular or self.is_fixed(regular[0]):
            return False
        if len(regular) > 1 and self.is_fixed(regular[-2]) and self.nullable(regular[-1]):
            return False  # a nullable last field after a fixed run reads the tagged-field byte with the run
        return self.peek_code(regular[0]) == "B" and self.peeks_after(regular[-1], None)

    def folds_into_next(self, f: Field, nxt: Field | None) -> bool:
        """Whether ``f`` and ``nxt`` are both unrolled arrays of a flexible struct (``emit_short_array_decode``),
        ``nxt`` with a joint test, so that ``f``'s two-element path may leave its last element's tagged-field
        section to that test."""
        if nxt is None or self.trace or not self.flexible or self.prologue is None or self.inline_depth < 1:
            return False
        for g in (f, nxt):
            t = g.spec.type
            if not (t.is_array and t.is_struct and self.inline_depth < 3 and _is_leaf(g.struct_cls)  # type: ignore[arg-type]
                    and self.compact(g) and self.present(g) and not self.tagged(g)):
                return False
        head = self.regular_fields(nxt.struct_cls)  # type: ignore[arg-type]
        return bool(head) and not head[0].spec.type.is_array and head[0].spec.type.name == "string"

    def peeks_after(self, f: Field, nxt: Field | None) -> bool:
        """Whether the fast path reads compact bytes field ``f`` together with the byte after it (see
        ``emit_peeking_bytes_decode``): when that byte opens what follows, a compact length or count (``nxt``) or,
        ``f`` ending a flexible struct, the tagged-field section."""
        t = f.spec.type
        if self.trace or t.is_array or t.name not in ("bytes", "records") or not self.compact(f):
            return False
        return self.peek_code(nxt) == "B"

    def emit_peeking_bytes_decode(self, f: Field, target: str, peeked: str | None, skip: int,
                                  ends: bool, also: str | None = None) -> tuple[str, str]:
        """A compact bytes field on the fast path, read with the byte that follows it in one ``unpack_from``
        (``BYTES_AND_NEXT[n]``: ``>x{n-1}sB``, the length byte skipped): the same bytes object as ``buf[p:pos]``,
        and the next length or count (or tagged-field byte) without a subscript of its own.  Returns (variable
        holding that byte, variable holding how far ``pos`` is short of it, or "").

        Why: a subscript of ``bytes`` is a generic call (~190 instructions), a position past 256 a new int (~210),
        and the slice a slice object; one call with a prebuilt ``Struct`` costs less than the three together
        (DescribeGroups v5: each member's metadata and assignment, the assignment with its tagged-field byte).
        ``ends`` (the field ends the struct): ``pos`` is left at the field's start in the common case, and the
        tagged-field section adds the field's length and its own byte in one addition.  The byte after a field
        always exists in a valid message, so reading it cannot refuse one; on a truncated input ``struct``
        raises where a subscript would have, and the tracing decoder says where as before.

        ``also`` (with ``ends``): a variable that gets the byte after the tagged-field byte too (``>x{n-1}sBB``),
        the next element's first byte in a loop (``carries_next``): right when the section is empty, and read
        again after a section that is not (``emit_tagged_decode``).  That byte exists in a valid message: the
        field ends a struct inside a flexible one, so the outer struct's own bytes follow."""
        s = self.src
        if skip:
            s(f"pos += {skip}")
        self.ns.setdefault("BYTES_AND_NEXT", _bytes_and_next())
        n = peeked or s.tmp("n")
        q = s.tmp("q")
        slow = self.const(_slow_reader(f.spec.type.name, True, self.nullable(f), f.spec.name), "RD")
        if not peeked:
            s(f"{n} = buf[pos]")
        s(f"if ONE[{n}]:")
        if also:
            self.ns.setdefault("BYTES_AND_TWO", _bytes_and_next(2))
            s(f"    {target}, {q}, {also}, = BYTES_AND_TWO[{n}](buf, pos)")
        else:
            s(f"    {target}, {q}, = BYTES_AND_NEXT[{n}](buf, pos)")
        if not ends:
            s(f"    pos += {n}")
        if self.nullable(f):
            s(f"elif {n} == 0:")
            s(f"    {target} = None")
            s("    pos += 1")
            s(f"    {q} = buf[pos]")
            if also:  # the byte after the section's first (a non-empty section: rewritten after it is read)
                s(f"    {also} = buf[pos + 1]")
        s("else:")
        if ends:  # ``pos`` + ``n`` is the end on every path
            e = s.tmp("end")
            s(f"    {target}, {e} = {slow}(buf, pos)")
            s(f"    {n} = {e} - pos")
            s(f"    {q} = buf[{e}]")
            if also:
                s(f"    {also} = buf[{e} + 1]")
        else:
            s(f"    {target}, pos = {slow}(buf, pos)")
            s(f"    {q} = buf[pos]")
        return q, n if ends else ""

    def emit_fast_array_decode(self, f: Field, target: str, compact: bool, nullable: bool,
                               peeked: str | None = None) -> None:
        if f.spec.type.is_struct and self.inline_depth < 3 and _is_leaf(f.struct_cls):  # type: ignore[arg-type]
            self.emit_short_array_decode(f, target, compact, nullable, peeked)
            return
        self.emit_fast_array_count(f, target, compact, nullable, peeked)

    def emit_fast_array_count(self, f: Field, target: str, compact: bool, nullable: bool,
                              peeked: str | None = None, *, count_read: bool = False) -> None:
        """An array on the fast path: a one-byte compact count (or an int32 count that fits what is
        left) inline; nulls, long counts and impossible counts in a helper.

        A count under 128 needs no check against the bytes left: the element reads fail at the end of
        the input long before 127 elements could cost anything, and fixed-width runs are unpacked by
        ``struct``, which checks the length itself.
        """
        s = self.src
        n = peeked or s.tmp("n")
        slow = self.const(_slow_count(compact, nullable, f.spec.name), "RC")
        if compact:
            if not peeked:
                s(f"{n} = buf[pos]")
            s(f"if ONE[{n}]:")
            s(f"    {n} -= 1")
            s("    pos += 1")
            if nullable:
                s(f"elif {n} == 0:")
                s(f"    {n} = -1")
                s("    pos += 1")
            s("else:")
            s(f"    {n}, pos = {slow}(buf, pos, blen)")
        else:
            if not peeked:
                s(f"{n}, = {self.unpacker('>i')}(buf, pos)")
            if not count_read:  # ``count_read``: the int32 count is in ``peeked`` and pos is past it
                s("pos += 4")
            s(f"if not 0 <= {n} <= blen - pos:")
            s(f"    {n} = {slow}({n}, pos, blen)")
        if nullable:
            s(f"if {n} < 0:")
            s(f"    {target} = None")
            s("else:")
            s.indent()
        self.emit_decode_array_elements(f, target, n, compact)
        if nullable:
            s.dedent()

    def emit_decode_array_elements(self, f: Field, target: str, n: str, compact: bool) -> None:
        s = self.src
        et = f.spec.type.name
        lst = s.tmp("lst")
        if f.spec.type.is_struct:
            self.need(f.struct_cls)  # type: ignore[arg-type]
            fn = self.fn_name(f.struct_cls, "dec")  # type: ignore[arg-type]
            e = s.tmp("e")
            if target == f"{self.obj}.{store_attr(f)}" and self.repeat_site(f):
                self.emit_repeat_decode(f, n, fn)
                return
            if not self.trace and self.inline_depth < 3:
                # The elements are allocated in one C-level pass (``starmap`` over ``object.__new__``, see
                # ``new_args``) and then filled in place: that saves a Python-level call and a list append per
                # element.  The count is bounded before this allocates anything: under 128 (compact), or no more
                # than the bytes left (see ``emit_fast_array_count``).
                args = self.new_args(f.struct_cls)  # type: ignore[arg-type]
                s(f"{target} = {lst} = [*starmap(new, {self.args_runs(args)}[{n}] if {n} < {_ARGS_RUNS} else "
                  f"repeat({args}, {n}))]")
                nx = None
                if self.carries_next(f.struct_cls):  # type: ignore[arg-type]
                    # Each element's last bytes field also reads the next element's first byte (see
                    # ``emit_peeking_bytes_decode``); the first element's is read here.  A byte follows the count
                    # in a valid message (at least the struct's tagged-field section), and follows every element.
                    nx = s.tmp("nx")
                    s(f"{nx} = buf[pos]")
                s(f"for {e} in {lst}:")
                self.inline_depth += 1
                s.indent()
                self.emit_decoder_body(f.struct_cls, e, head_peeked=nx, allocated=True,  # type: ignore[arg-type]
                                       loop_next=nx)
                s.dedent()
                self.inline_depth -= 1
                return
            s(f"{lst} = []")
            # lst.append(e) straight: 3.11 specializes that call, while a bound ``ap = lst.append``
            # costs an allocation per array and a slower call per element.
            ap = f"{lst}.append"
            i = s.tmp("i")
            s(f"for {i} in range({n}):")
            if self.trace:
                s(f"    T.append(({i}, pos))")
            s(f"    {e}, pos = {fn}(buf, sbuf, pos, blen)")
            s(f"    {ap}({e})")
            if self.trace:
                s("    T.pop()")
            s(f"{target} = {lst}")
            return
        if et in ("bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64"):
            size = FIXED_WIDTH[et]
            # Short arrays (replica lists, partition lists) unpack with a prebuilt Struct per count:
            # building the format string and looking it up in struct's cache costs more than the read.
            ua = f"UA_{_FMT[et].replace('?', 'B_')}"
            self.ns.setdefault(ua, _array_unpackers(_FMT[et]))
            # An empty array (offline replicas, most often) is a new list and no read.
            s(f"if not {n}:")
            s(f"    {target} = []")
            s(f"elif {n} < {_ARRAY_UNPACKERS}:")
            s(f"    {target} = [*{ua}[{n}](buf, pos)]")
            s(f"    pos += {n} * {size}")
            s("else:")
            s(f"    {target} = [*sunpack('>%d{_FMT[et]}' % {n}, buf, pos)]")
            s(f"    pos += {n} * {size}")
            return
        s(f"{lst} = []")
        i = s.tmp("i")
        s(f"for {i} in range({n}):")
        s.indent()
        if self.trace:
            s(f"T.append(({i}, pos))")
        if et == "uuid":
            s(f"{lst}.append({self.uuid_of()}({self.unpacker('>16s')}(buf, pos)[0]))")
            s("pos += 16")
        elif et in ("string", "bytes", "records") and not self.trace:
            e = s.tmp("el")
            self.emit_fast_varlen_decode(et, e, compact, False, f"{f.spec.name}[]")
            s(f"{lst}.append({e})")
        elif et in ("string", "bytes", "records"):
            m = s.tmp("m")
            self.emit_read_len(m, compact, "string" if et == "string" else "x")
            s(f"if {m} < 0:")
            s(f"    raise BadData('null element in array {f.spec.name}')")
            e = s.tmp("end")
            s(f"{e} = pos + {m}")
            s(f"if {e} > blen:")
            s("    raise Truncated('array element runs past the end of the input')")
            s(f"{lst}.append(buf[pos:{e}].decode('utf-8'))" if et == "string" else f"{lst}.append(buf[pos:{e}])")
            s(f"pos = {e}")
        else:
            raise SchemaError(f"{self.msg.name}.{f.spec.name}: unsupported array element type {et}")
        if self.trace:
            s("T.pop()")
        s.dedent()
        s(f"{target} = {lst}")

    def repeat_site(self, f: Field) -> bool:
        """Whether this struct array, at this place of the generated code, is decoded lazily when its bytes
        repeat: only in the lazy variant, inside an inlined array loop (where the same field comes again in
        the same call), and only for elements that take at least one byte each (see ``_min_size``)."""
        return (bool(self.lazy) and self.prologue is not None and 1 <= self.inline_depth < 3
                and f.spec.type.is_array and f.spec.type.is_struct and self.present(f) and not self.tagged(f)
                and _min_size(f.struct_cls, self.version, self.flexible) > 0)  # type: ignore[arg-type]

    def emit_repeat_decode(self, f: Field, n: str, fn: str) -> None:
        """A struct array whose bytes repeat those of the last one decoded at this place: decoded on first
        access.

        Large answers repeat themselves: CreateTopics v5+ and DescribeConfigs answer the same ~30 config
        entries for every topic created with the broker's defaults.  Decoding is a function of the bytes, so
        an array whose count and element bytes equal those of an array this same code already decoded
        without error (one ``startswith``, a memcmp) would decode to equal objects, and cannot fail: every
        read and every bounds check lands inside those bytes, the counts included, because each element
        takes at least one byte.  Such an array is not built now: the struct keeps (materializer, bytes,
        count) and ``LazyField`` builds the list the first time the attribute is read, from the
        shared bytes of the earlier array (not the whole frame, which is not kept alive).  Arrays shorter
        than ``self.lazy`` elements are always decoded at once (a thunk would cost what they cost)."""
        s = self.src
        cls: type = f.struct_cls  # type: ignore[assignment]
        pn, pr, st = s.tmp("pn"), s.tmp("pr"), s.tmp("st")
        self.prologue += [f"{pn} = -1", f"{pr} = b''"]  # type: ignore[operator]
        mat = s.tmp("lazy_array")
        self.pending_lazy.append((mat, cls))
        LazyField.install(self.cur_cls, f.attr)
        obj = self.obj
        s(f"if {n} == {pn} and buf.startswith({pr}, pos):")
        if self.lazy_count == 1:
            s(f"    {obj}._lazy = {{{f.attr!r}: ({mat}, {pr}, {n})}}")
        else:
            s(f"    lazy_set({obj}, {f.attr!r}, ({mat}, {pr}, {n}))")
        s(f"    pos += len({pr})")
        s("else:")
        s.indent()
        s(f"{st} = pos")
        lst, e = s.tmp("lst"), s.tmp("e")
        s(f"{obj}.{store_attr(f)} = {lst} = list(starmap(new, repeat({self.new_args(cls)}, {n})))")
        s(f"for {e} in {lst}:")
        self.inline_depth += 1
        s.indent()
        self.emit_decoder_body(cls, e, allocated=True)
        s.dedent()
        self.inline_depth -= 1
        self.obj = obj
        s(f"if {n} >= {self.lazy}:")
        s(f"    {pn}, {pr} = {n}, buf[{st}:pos]")
        s.dedent()

    def gen_lazy_array(self, name: str, cls: type) -> None:
        """``name(raw, n)``: the n elements in ``raw`` (bytes an earlier array decoded from without error), with
        the same inlined loop as the eager path (a call per element would make a later read of every lazy array
        cost more than decoding them at once)."""
        s = self.src
        saved_obj, saved_depth = self.obj, self.inline_depth
        s(f"def {name}(buf, n):")
        s.indent()
        s("sbuf = str(buf, 'latin-1')")
        s("blen = len(buf)")
        s("pos = 0")
        self.open_prologue()
        lst, e = s.tmp("lst"), s.tmp("e")
        s(f"{lst} = list(starmap(new, repeat({self.new_args(cls)}, n)))")
        s(f"for {e} in {lst}:")
        self.inline_depth = 1
        s.indent()
        self.emit_decoder_body(cls, e, allocated=True)
        s.dedent()
        self.close_prologue()
        s("if pos != blen:")
        s(f"    raise BadData('lazy array of {cls.__name__} did not decode as before')")
        s(f"return {lst}")
        s.dedent()
        s("")
        self.obj, self.inline_depth = saved_obj, saved_depth

    def emit_short_array_decode(self, f: Field, target: str, compact: bool, nullable: bool,
                                peeked: str | None) -> None:
        """An array of leaf structs (no arrays or structs inside): one or two elements without a loop.

        Why: most struct arrays in admin responses are tiny (a quota entry's entities and values), and
        for two elements the loop's machinery (``range``, the iterator, the appends, a growing list)
        costs as much as decoding them.  The common counts are tested first, before the general count
        checks (a count of 1 or 2 needs none: element reads fail at the end of the input), and the first
        of two elements reads the prefix of the second with its own trailing fixed-width fields.  Only
        leaf structs are unrolled, so the generated code grows by three bodies at most.

        When the first element starts with a string at a repeat place (``emit_fast_varlen_decode``), the count
        of two and that string are kept together once the string repeats, and tested with one slice
        comparison before the count is read: a quota entry's two arrays then cost one comparison each instead
        of a count read (an int32 count is a struct call) plus the place's own test (quotas v0 ~7% faster).
        Sound for the same reason as the place's test: equal bytes, equal count and string.
        """
        s = self.src
        cls: type = f.struct_cls  # type: ignore[assignment]
        leave_last, self.leave_last = self.leave_last, None
        fold_prev, self.fold_prev = self.fold_prev, None
        n = peeked or s.tmp("n")
        regular = self.regular_fields(cls)
        head = regular[0] if regular else None
        joint = None
        if (not peeked and self.prologue is not None and self.inline_depth >= 1 and head is not None
                and not head.spec.type.is_array and head.spec.type.name == "string"):
            # The count and the first element's first string (a repeat place, see ``emit_fast_varlen_decode``)
            # are tested together: while both repeat, one slice comparison replaces reading the count (for an
            # int32 count a struct call) and the place's own test.
            cj, lj, sj, hj = s.tmp("cj"), s.tmp("lj"), s.tmp("sj"), s.tmp("hj")
            self.prologue += [f"{cj} = {sj} = None", f"{lj} = 0"]
            if fold_prev:
                # The array before left its last element's tagged-field section (``lt``, None if it did not): the
                # kept bytes then open with that section's empty form, and a match says it is empty.
                self.folded_joints.add(cj)
                lt = fold_prev[1]
                s(f"if {cj} is not None and {lt} is not None and buf[pos:({hj} := pos + {lj})] == {cj}:")
                s(f"    {lt}._unknown_tags = None")
            else:
                s(f"if {cj} is not None and buf[pos:({hj} := pos + {lj})] == {cj}:")
            s(f"    {n} = {3 if compact else 2}")
            s("else:")
            if fold_prev:
                s(f"    if {fold_prev[1]} is not None:")
                s.indent()
                s.indent()
                self.emit_left_tags(fold_prev)
                s.dedent()
                s.dedent()
                fold_prev = None
            s(f"    {hj} = 0")
            if compact:
                s(f"    {n} = buf[pos]")
            else:
                s(f"    {n}, = {self.unpacker('>i')}(buf, pos)")
                s("    pos += 4")
            joint = (cj, lj, sj, hj, 1 if compact else 4, "pos += 1" if compact else None)
        if fold_prev:  # (not as generated: ``folds_into_next`` asks for a joint test) the section is read first
            s(f"if {fold_prev[1]} is not None:")
            s.indent()
            self.emit_left_tags(fold_prev)
            s.dedent()
        if compact:  # the raw byte is count + 1
            if not peeked and not joint:
                s(f"{n} = buf[pos]")
            two, one, step = f"{n} == 3", f"{n} == 2", "pos += 1"
        else:
            if not peeked and not joint:
                s(f"{n}, = {self.unpacker('>i')}(buf, pos)")
            if not joint:
                s("pos += 4")
            two, one, step = f"{n} == 2", f"{n} == 1", None
        # Two first: it costs one comparison, and one element costs two either way.
        self.inline_depth += 1
        saved_unrolled, self.unrolled = self.unrolled, True
        first, second = s.tmp("e"), s.tmp("e")
        s(f"if {two}:")
        s.indent()
        if step and not joint:  # with the joint test, the first field's own path moves past the count
            s(step)
        self.joint_head = joint
        # The second element's first string, at a repeat place, also tests the first element's tagged-field section
        # (see ``emit_fast_varlen_decode``): the first element leaves it when it would read it on its own.
        fold = (self.flexible and self.inline_depth >= 2 and self.prologue is not None and head is not None
                and not head.spec.type.is_array and head.spec.type.name == "string")
        self.left_tags = None
        carried = self.emit_decoder_body(cls, first, tail_peek=head, leave_tags=fold)
        left, self.left_tags = self.left_tags, None
        self.emit_decoder_body(cls, second, head_peeked=carried, fold_tags=left, leave_tags=bool(leave_last))
        s(f"{target} = [{first}, {second}]")
        if leave_last:  # the next array's joint test reads the section the second element left, if it did
            s(f"{leave_last} = {second if self.left_tags else 'None'}")
            self.left_tags = None
        s.dedent()
        s(f"elif {one}:")
        s.indent()
        if step:
            s(step)
        self.emit_decoder_body(cls, first)
        s(f"{target} = [{first}]")
        if leave_last:
            s(f"{leave_last} = None")
        s.dedent()
        self.inline_depth -= 1
        self.unrolled = saved_unrolled
        s("else:")
        s.indent()
        if leave_last:
            s(f"{leave_last} = None")
        if compact:  # the raw byte was only peeked
            self.emit_fast_array_count(f, target, compact, nullable, n)
        else:  # the count is read and pos moved on: only the checks are left
            self.emit_fast_array_count(f, target, compact, nullable, n, count_read=True)
        s.dedent()

    def emit_left_tags(self, left: tuple[type, str]) -> None:
        """Read the tagged-field section that the struct ``left`` = (struct, variable) left to what follows it."""
        saved, self.obj = self.obj, left[1]
        self.emit_tagged_decode(left[0])
        self.obj = saved

    def emit_tagged_decode(self, cls: type, peeked: str | None = None, skip: int = 0, short: str = "",
                           reread: str | None = None) -> None:
        """The tagged-field section of a struct: almost always empty (one zero byte), so that case is
        inline and anything else goes to a per-struct helper generated by ``gen_tags_decoder``.  ``skip``:
        ``pos`` is still that many bytes short of the section (see ``defers_advance``); ``short``: a variable
        holding that shortfall instead (see ``emit_peeking_bytes_decode``); ``reread``: a variable to hold the
        byte after a section that is not empty (one that is: the caller read it)."""
        s = self.src
        o = self.obj
        at = f"pos + {short}" if short else f"pos + {skip}" if skip else "pos"
        s(f"if {peeked or 'buf[pos]'}:")
        s(f"    pos = {self.fn_name(cls, 'tags')}({o}, buf, sbuf, {at}, blen)")
        if reread:
            s(f"    {reread} = buf[pos]")
        s("else:")
        s(f"    pos += {short} + 1" if short else f"    pos += {1 + skip}")
        s(f"    {o}._unknown_tags = None")
        if cls.__name__ not in self.tags_done:
            self.tags_done.add(cls.__name__)
            self.pending_tags.append(cls)

    def gen_tags_decoder(self, cls: type) -> None:
        s = self.src
        fields: list[Field] = cls._kfields  # type: ignore[attr-defined]
        tagged = [f for f in fields if self.tagged(f)]
        saved_obj, saved_depth = self.obj, self.inline_depth
        self.obj, self.inline_depth = "o", 0
        s(f"def {self.fn_name(cls, 'tags')}(o, buf, sbuf, pos, blen):")
        s.indent()
        if self.trace:
            s("T = TRACE")
        nt, unk, tag, size, tend = (s.tmp(x) for x in ("nt", "unk", "tag", "size", "tend"))
        s(f"{nt}, pos = ruv(buf, pos)")
        s(f"if {nt} > blen - pos:")
        s(f"    raise Truncated('tagged field count ' + str({nt}) + ' is larger than the bytes that remain')")
        s(f"{unk} = None")
        s(f"for _ in range({nt}):")
        s.indent()
        s(f"{tag}, pos = ruv(buf, pos)")
        s(f"{size}, pos = ruv(buf, pos)")
        s(f"{tend} = pos + {size}")
        s(f"if {tend} > blen:")
        s(f"    raise Truncated('tagged field ' + str({tag}) + ' runs past the end of the input')")
        first = True
        for f in sorted(tagged, key=lambda x: x.spec.tag):  # type: ignore[arg-type,return-value]
            s(f"{'if' if first else 'elif'} {tag} == {f.spec.tag}:")
            first = False
            s.indent()
            self.emit_decode_field(f, f"o.{f.attr}", tagged=True)
            s(f"if pos != {tend}:")
            s(f"    raise BadData('tagged field {f.spec.name} (tag {f.spec.tag}) has size ' + str({size}) + "
              f"' but its value took ' + str(pos - {tend} + {size}))")
            s.dedent()
        if not first:
            s("else:")
            s.indent()
        s(f"if {unk} is None:")
        s(f"    {unk} = {{}}")
        s(f"{unk}[{tag}] = bytes(buf[pos:{tend}])")
        s(f"pos = {tend}")
        if not first:
            s.dedent()
        s.dedent()
        s(f"o._unknown_tags = {unk}")
        s("return pos")
        s.dedent()
        s("")
        self.obj, self.inline_depth = saved_obj, saved_depth


_ARRAY_UNPACKERS = 64
#: Struct arrays shorter than this are allocated from prebuilt runs of arguments (``VersionCodegen.args_runs``).
_ARGS_RUNS = 32
#: ``ONE[b]``: whether ``b``, the first byte of a compact length or count, is the whole of a non-null one: 1-127.
#: The fast path's test of every such byte (``if ONE[n]:``): a tuple subscript and a test of a bool cost about
#: half of ``n < 128 and n``, whose second half asks an int for its truth (DescribeGroups v5: six per member).
_ONE_BYTE = tuple(0 < b < 128 for b in range(256))
#: How many times in a row an unrolled string place may read a string that differs from the last one before it
#: stops watching for repeats (for the rest of that decode); a repeat gives it the full count again.  See
#: ``emit_fast_varlen_decode``.
_REUSE_TRIES = 8
#: The lazy decoder (``Message.decode(..., lazy=True)``, what the client uses) leaves repeated struct arrays of
#: at least this many elements undecoded until first read.
LAZY_MIN = 4
#: Guards the moment a lazily decoded array becomes the attribute's value (two threads reading it at once
#: must get the same list).
LAZY_LOCK = threading.Lock()


def _min_size(cls: type, version: int, flexible: bool, seen: frozenset[str] = frozenset()) -> int:
    """The fewest bytes a struct can take at this version (0 only for a non-flexible struct with no fields
    present, or one made only of such structs)."""
    if cls.__name__ in seen:
        return 1  # recursive structs do not occur in Kafka's schemas; treat as non-empty
    size = 1 if flexible else 0
    for f in cls._kfields:  # type: ignore[attr-defined]
        if version not in f.spec.versions or (flexible and version in f.spec.tagged):
            continue
        t = f.spec.type
        if t.is_array or t.name in ("string", "bytes", "records"):
            size += 1
        elif t.is_struct:
            size += _min_size(f.struct_cls, version, flexible, seen | {cls.__name__})
        else:
            size += FIXED_WIDTH[t.name]
    return size


def fixed_run_size(run: list[Field]) -> int:
    """Bytes a run of fixed-width fields takes on the wire."""
    return struct.calcsize(">" + "".join(_FMT[f.spec.type.name] for f in run))


def store_attr(f: Field) -> str:
    """The attribute a decoder stores field ``f`` through: for a struct array, the ``_raw_`` alias of its slot
    (see ``raw_alias``), which stays the plain slot after ``LazyField`` takes the field's own name."""
    t = f.spec.type
    return raw_alias(f.attr) if t.is_array and t.is_struct else f.attr


def raw_alias(attr: str) -> str:
    """Name of the class attribute that holds the slot of a struct-array field ``attr`` (set by the message
    class builder).

    Why: ``LazyField`` replaces the field's own name with a Python-level descriptor, so every store through
    that name becomes a Python call; the decoders store every struct array (an AlterClientQuotas answer of
    5,000 entries: 5,000 stores), and the slot's member descriptor under a second name keeps that store at C
    speed.  Reads keep the field's own name (a lazily decoded array is built on first read)."""
    return "_raw_" + attr


class LazyField:
    """The attribute of a struct field that the lazy decoder may leave undecoded: the field's slot, plus
    building the array on the first read of an empty slot that has a thunk in ``_lazy``.

    Why a descriptor on the few fields that need it rather than ``__getattr__`` on every struct: a class with a
    ``__getattr__`` loses CPython's fast attribute access for every attribute (encoding got ~30% slower); this
    costs one Python call per access of these fields only.  Installed on a struct class the first time a lazy
    decoder with a repeat site for the field is generated; reads, writes and deletes of a decoded value go to
    the slot as before."""

    __slots__ = ("slot", "name")

    def __init__(self, slot: Any, name: str) -> None:
        self.slot = slot
        self.name = name

    @classmethod
    def install(cls, owner: type, name: str) -> None:
        current = owner.__dict__.get(name)
        if current is not None and not isinstance(current, LazyField):
            setattr(owner, name, cls(current, name))

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        try:
            return self.slot.__get__(obj, owner)
        except AttributeError:
            pending: dict[str, Any] = getattr(obj, "_lazy", None) or {}
            thunk = pending.get(self.name)
            if thunk is None:
                raise
        value = thunk[0](thunk[1], thunk[2])
        with LAZY_LOCK:  # a thread that built it first wins: everyone sees one list
            if self.name in pending:
                self.slot.__set__(obj, value)
                del pending[self.name]
                if not pending:
                    del obj._lazy
                return value
        return self.slot.__get__(obj, owner)

    def __set__(self, obj: Any, value: Any) -> None:
        self.slot.__set__(obj, value)

    def __delete__(self, obj: Any) -> None:
        self.slot.__delete__(obj)


_new = object.__new__
_UNKNOWN = uuid.SafeUUID.unknown


def _uuid_of_bytes(b: bytes) -> uuid.UUID:
    """``uuid.UUID(bytes=b)``: the fallback for a Python whose UUID has other slots (see below)."""
    return uuid.UUID(bytes=b)


if set(getattr(uuid.UUID, "__slots__", ())) == {"int", "is_safe", "__weakref__"}:
    _UUID_ARGS = (uuid.UUID,)  # ``_new(*_UUID_ARGS)``: no 1-tuple built per call (see ``VersionCodegen.new_args``)
    _uuid_set_int = uuid.UUID.__dict__["int"].__set__
    _uuid_set_safe = uuid.UUID.__dict__["is_safe"].__set__

    def _uuid_of_bytes(b: bytes) -> uuid.UUID:  # noqa: F811
        """``uuid.UUID(bytes=b)`` for exactly 16 bytes, without its argument checks: the same object (``int`` and
        ``is_safe`` are its only slots) in a sixth of the time (a 1,000-topic CreateTopics or Metadata answer has
        1,000 topic ids).  The slots are set through their member descriptors (what ``object.__setattr__`` ends
        up calling, without its argument tuples and name lookup): 0.22 against 0.38 us with ``object.__setattr__``
        and 1.49 us for ``UUID(bytes=b)``."""
        u = _new(*_UUID_ARGS)
        _uuid_set_int(u, int.from_bytes(b, "big"))
        _uuid_set_safe(u, _UNKNOWN)
        return u


def _lazy_set(o: Any, attr: str, thunk: tuple[Any, ...]) -> None:
    """Record a lazily decoded attribute on a struct with more than one such array."""
    try:
        pending = o._lazy
    except AttributeError:
        o._lazy = {attr: thunk}
        return
    pending[attr] = thunk
_unpackers_cache: dict[str, tuple[Callable[..., Any], ...]] = {}


def _is_leaf(cls: type) -> bool:
    """A struct with no arrays and no structs inside (in any version)."""
    return not any(f.spec.type.is_array or f.spec.type.is_struct for f in cls._kfields)  # type: ignore[attr-defined]


def _bytes_and_next(after: int = 1) -> tuple[Callable[..., tuple[Any, ...]] | None, ...]:
    """``unpack_from`` of ``>x{n-1}sB`` for each one-byte compact length n (1-127; None at 0 and above): a compact
    bytes value and the byte after it (``after`` = 2: the two bytes after it), see
    ``VersionCodegen.emit_peeking_bytes_decode``; shared by every codec."""
    got = _BYTES_AND_NEXT.get(after)
    if got is None:
        got = _BYTES_AND_NEXT[after] = ((None,) + tuple(
            struct.Struct(f">x{n - 1}s{'B' * after}").unpack_from for n in range(1, 128)) + (None,) * 128)
    return got


_BYTES_AND_NEXT: dict[int, tuple[Callable[..., tuple[Any, ...]] | None, ...]] = {}


def _array_packers(code: str) -> tuple[Callable[..., bytes], ...]:
    """``pack`` of ``>{n}{code}`` for n below _ARRAY_UNPACKERS, shared by every compiled codec."""
    key = "pack" + code
    got = _unpackers_cache.get(key)
    if got is None:
        got = tuple(struct.Struct(f">{n}{code}").pack for n in range(_ARRAY_UNPACKERS))
        _unpackers_cache[key] = got
    return got


def _array_unpackers(code: str) -> tuple[Callable[..., tuple[Any, ...]], ...]:
    """``unpack_from`` of ``>{n}{code}`` for n below _ARRAY_UNPACKERS, shared by every compiled codec."""
    got = _unpackers_cache.get(code)
    if got is None:
        got = tuple(struct.Struct(f">{n}{code}").unpack_from for n in range(_ARRAY_UNPACKERS))
        _unpackers_cache[code] = got
    return got


def _slow_count(compact: bool, nullable: bool, name: str) -> Callable[..., Any]:
    """The uncommon cases of an array count: null, a multi-byte compact count, a count larger than the
    bytes left (refused before anything is allocated for it).

    Compact: ``(buf, pos, blen) -> (count, pos)``; int32: ``(count, pos, blen) -> count`` (the count was
    already read inline).  A null comes back as -1 where the version allows it.
    """

    def check(n: int, pos: int, blen: int) -> int:
        if n < 0:
            if nullable:
                return -1
            raise BadData(f"null value in non-nullable field {name}")
        if n > blen - pos:
            raise P.Truncated(f"array count {n} is larger than the bytes that remain")
        return n

    if not compact:
        return check

    def read(buf: bytes, pos: int, blen: int) -> tuple[int, int]:
        n, pos = P.read_uvarint(buf, pos)
        return check(n - 1, pos, blen), pos

    return read


def _slow_reader(kind: str, compact: bool, nullable: bool, name: str) -> Callable[[bytes, int], tuple[Any, int]]:
    """The uncommon cases of a string/bytes read: long compact lengths, nulls, bad lengths."""

    def read(buf: bytes, pos: int) -> tuple[Any, int]:
        if compact:
            n, pos = P.read_uvarint(buf, pos)
            n -= 1
        elif kind == "string":
            n = struct.unpack_from(">h", buf, pos)[0]
            pos += 2
        else:
            n = struct.unpack_from(">i", buf, pos)[0]
            pos += 4
        if n < 0:
            if nullable:
                return None, pos
            raise BadData(f"null value in non-nullable field {name}")
        end = pos + n
        if end > len(buf):
            raise P.Truncated(f"{kind} of {n} bytes runs past the end of the input")
        raw = buf[pos:end]
        return (raw.decode("utf-8") if kind == "string" else raw), end

    return read


def write_unknown_tags(known: list[tuple[int, bytearray]] | None, unknown: dict[int, bytes] | None,
                       out: bytearray) -> None:
    """Write the tagged-fields section: known and unknown tags merged in ascending tag order."""
    items: list[tuple[int, Any]] = list(known) if known else []
    if unknown:
        seen = {t for t, _ in items}
        for tag, payload in unknown.items():
            if tag in seen:
                continue
            items.append((tag, payload))
        items.sort(key=lambda kv: kv[0])
    out += P.write_uvarint(len(items))
    for tag, payload in items:
        out += P.write_uvarint(tag)
        out += P.write_uvarint(len(payload))
        out += payload

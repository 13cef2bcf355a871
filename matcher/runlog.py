"""What a log says about its run that the scan does not keep, read on the way through.

The scan looks only at the lines its catalog anchors; the run record also wants the lines
where each process states how it was started: its argument dump or command line, the
environment, the free memory it found at startup, a pasted ``nvidia-smi`` table, and the
first and last timestamps. :class:`RunLog` sees every block of the input as the scan reads it
(:meth:`RunLog.observe` wraps the stream, so stdin works too), picks those lines with one
search per block, and files what they say under the process that printed them: vLLM's
``(EngineCore_DP0 pid=1)``, torch.distributed's ``[rank1]:``, SGLang's ``[... TP0]``.
Lines without a tag belong to the process ``""``.
"""

from __future__ import annotations

import re
from typing import Any, BinaryIO

import msgspec

from . import dumps
from .normalize import parse_line
from .prefilter import Anchor, Prefilter, make_prefilter, small_input_engine
from .redact import prompt_free

MAX_LINE = 64 * 1024  # bytes of one picked line that are read
MAX_GPUS = 64
MAX_PROCESSES = 64

# Literals of every kind of line the record reads, searched for in one pass per block by the
# scan's own prefilter engine (Hyperscan where installed); the line's own regexes decide.
MARKERS = (
    b"non-default args: {", b"ServerArgs(", b"Namespace(", b"Args {", b"with config: ",  # dumps
    b"llama_context: ", b"llama_new_context_with_model: ",
    b"vllm serve ", b"launch_server", b"text-generation-launcher ", b"llama-server ", b"runner --",  # commands
    b"trtllm-serve ",
    b"map[", b"PYTORCH_", b"CUDA_", b"HIP_VISIBLE", b"ROCR_VISIBLE", b"VLLM_", b"NCCL_", b"OLLAMA_",  # environment
    b"SGLANG_", b"GGML_", b"NVIDIA_VISIBLE", b"MAX_",
    b"on startup", b"inference compute",  # free memory at startup
    b"0000:", b"MiB /",  # nvidia-smi rows: the bus id, the memory column
)
MAX_PICKED = 20_000  # lines read for the record; past that only timestamps (bounded work on hostile input)
MAX_DUMP_TEXT = 4 * 1024 * 1024  # characters read as argument dumps and command lines in one log

# Timestamps: ISO dates (SGLang, TGI, Ollama, Kubernetes) and vLLM's "INFO 10-21 09:00:00".
_STAMP = re.compile(
    rb"(?P<iso>\d{4}-\d\d-\d\d)[T ](?P<iso_time>\d\d:\d\d:\d\d)"
    rb"|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) (?P<md>\d\d-\d\d) (?P<md_time>\d\d:\d\d:\d\d)"
)
_TAIL = 8192  # the last timestamp of a block is looked for in its last bytes
_PID = re.compile(r" pid=\d+")
_FREE_AT_START = (
    # vLLM V1: "Free memory on device cuda:0 (22.35/23.56 GiB) on startup ... (0.95, 22.38 GiB)"
    re.compile(r"Free memory on device (?:\S+ )?\((?P<free>[\d.]+)/(?P<total>[\d.]+) GiB\) on startup"
               r"(?:.{0,200}?\((?P<utilization>[\d.]+), (?P<requested>[\d.]+) GiB\))?"),
    # Ollama: msg="inference compute" ... total="23.7 GiB" available="23.4 GiB"
    re.compile(r'msg="inference compute".{0,400}?total="(?P<total>[\d.]+) GiB" available="(?P<free>[\d.]+) GiB"'),
)
_SMI_GPU = re.compile(r"^\|\s+(?P<index>\d{1,3})\s+(?P<name>\S.{0,60}?)\s{2,}(?:On|Off)\s+\|\s+[0-9A-Fa-f]{8}:")
_SMI_MEMORY = re.compile(r"^\|.{0,60}\|\s+(?P<used>\d+)MiB\s*/\s*(?P<total>\d+)MiB\s+\|")


class Gpu(msgspec.Struct):
    """One GPU of a pasted nvidia-smi table, with the memory in use when it was printed."""

    index: int
    name: str
    used_gib: float | None = None
    total_gib: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "used_gib": self.used_gib, "total_gib": self.total_gib}


class ProcessLog(msgspec.Struct):
    """What one process (or rank, or stage) printed about how it was started."""

    tag: str
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)
    argument_sources: list[str] = msgspec.field(default_factory=list)  # "non-default args", "Namespace", "command line" ...
    environment: dict[str, str] = msgspec.field(default_factory=dict)
    startup: dict[str, float] = msgspec.field(default_factory=dict)  # free_gib, total_gib, utilization, requested_gib

    def add_arguments(self, source: str, items: dict[str, Any]) -> None:
        if source not in self.argument_sources:
            self.argument_sources.append(source)
        for name, value in items.items():
            self.arguments.setdefault(name, value)  # the first dump of a name wins: later ones echo it


class RunLog(msgspec.Struct):
    """The record's own reading of one log: its processes (``""`` for untagged lines), the
    GPUs of a pasted nvidia-smi table, the first and last timestamps."""

    processes: dict[str, ProcessLog] = msgspec.field(default_factory=dict)
    gpus: list[Gpu] = msgspec.field(default_factory=list)
    started: str | None = None
    ended: str | None = None
    _carry: bytes = b""  # an unfinished line
    _prefilter: Prefilter | None = None
    _picked: int = 0  # lines read so far
    _dump_text: int = 0  # characters read as dumps so far

    def observe(self, stream: BinaryIO) -> _Observed:
        """The stream, unchanged, with every block it yields also read here."""
        return _Observed(stream, self)

    def feed(self, data: bytes) -> None:
        data = self._carry + data
        cut = data.rfind(b"\n") + 1
        if cut == 0 and len(data) < MAX_LINE:
            self._carry = data
            return
        block, self._carry = (data[:cut], data[cut:]) if cut else (data, b"")
        self._block(block)

    def finish(self) -> RunLog:
        if self._carry:
            self._block(self._carry)
            self._carry = b""
        return self

    def _block(self, block: bytes) -> None:
        self._timestamps(block)
        if self._picked >= MAX_PICKED:
            return
        if self._prefilter is None:
            self._prefilter = make_prefilter([Anchor(marker, False) for marker in MARKERS],
                                             small_input_engine(len(block)))
        for candidate in self._prefilter.candidates(block):
            self._picked += 1
            if self._picked > MAX_PICKED:
                return
            self._line(block[candidate.start:min(candidate.end, candidate.start + MAX_LINE)].decode("utf-8", "replace"))

    def _timestamps(self, block: bytes) -> None:
        if self.started is None:
            first = _STAMP.search(block)
            if first is not None:
                self.started = _stamp(first)
        last = None
        for last in _STAMP.finditer(block, max(0, len(block) - _TAIL)):
            pass
        if last is not None:
            self.ended = _stamp(last)

    def _line(self, line: str) -> None:
        message = parse_line(line)
        text = prompt_free(message.text)
        if text is None:  # a request echo: its prompt is no setting
            return
        process = self._process(message.origin or "")
        if self._dump_text < MAX_DUMP_TEXT:
            self._dump_text += len(text)
            dump = dumps.argument_dump(text)
            if dump is not None:
                process.add_arguments(*dump)
            command = dumps.command_line(text)
            if command is not None:
                flags, environment = command
                if flags:
                    process.add_arguments("command line", flags)
                process.environment.update(environment)
        process.environment.update(dumps.environment(text))
        for pattern in _FREE_AT_START:
            found = pattern.search(text)
            if found is not None and not process.startup:
                process.startup = {
                    name: float(value) for name, value in (
                        ("free_gib", found.group("free")), ("total_gib", found.group("total")),
                        ("utilization", found.groupdict().get("utilization")),
                        ("requested_gib", found.groupdict().get("requested")))
                    if value is not None
                }
        self._nvidia_smi(text)

    def _process(self, tag: str) -> ProcessLog:
        process = self.processes.get(tag)
        if process is None:
            if len(self.processes) >= MAX_PROCESSES:
                tag = ""
                process = self.processes.get(tag)
            if process is None:
                process = self.processes[tag] = ProcessLog(tag)
        return process

    def _nvidia_smi(self, text: str) -> None:
        gpu = _SMI_GPU.match(text)
        if gpu is not None and len(self.gpus) < MAX_GPUS:
            self.gpus.append(Gpu(int(gpu.group("index")), gpu.group("name").strip()))
            return
        memory = _SMI_MEMORY.match(text)
        if memory is not None and self.gpus and self.gpus[-1].total_gib is None:
            self.gpus[-1].used_gib = round(int(memory.group("used")) / 1024, 2)
            self.gpus[-1].total_gib = round(int(memory.group("total")) / 1024, 2)


def process_key(tag: str, tags: list[str]) -> str:
    """A process's name across runs: its tag without brackets and without the pid, which
    changes every run ("EngineCore_DP0", "VllmWorker rank=1", "rank1", "TP0"), unless two
    processes of this log would then share a name."""
    bare = tag.strip("()[]:")
    name = _PID.sub("", bare)
    same = [t for t in tags if _PID.sub("", t.strip("()[]:")) == name]
    return bare if len(same) > 1 else name


def _stamp(found: re.Match[bytes]) -> str:
    """"2024-07-15 10:00:00", or "10-21 09:00:00" where the log prints no year."""
    if found.group("iso"):
        return f"{found.group('iso').decode()} {found.group('iso_time').decode()}"
    return f"{found.group('md').decode()} {found.group('md_time').decode()}"


class _Observed:
    """A stream whose reads are also fed to a :class:`RunLog`."""

    def __init__(self, stream: BinaryIO, log: RunLog) -> None:
        self._stream = stream
        self._log = log

    def readinto(self, target: memoryview) -> int:
        readinto = getattr(self._stream, "readinto", None)
        if readinto is not None:
            count = readinto(target) or 0
        else:
            data = self._stream.read(len(target))
            count = len(data)
            target[:count] = data
        if count:
            self._log.feed(bytes(target[:count]))
        return count

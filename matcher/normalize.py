"""Turn a raw log line into the message text that signatures match.

Logs reach logkb wrapped in whatever the platform adds: ANSI colours, Docker Compose
service prefixes (``vllm-1  | ``), syslog and journalctl prefixes
(``Jun 16 20:53:56 host ollama[13938]: ``), Kubernetes CRI, ``kubectl --timestamps`` and
``kubectl logs --prefix`` prefixes, vLLM's process tags (``(EngineCore_DP0 pid=1)``),
logging headers (vLLM's, SGLang's, uvicorn's, llama.cpp's timestamped ``7.51.187.428 I ``),
vLLM-Omni's pipeline stage tags (``[Stage-0]``), Python rich's level and path columns (whose
long messages go on under their own column: :func:`continues_record`), JSON log records, and
the Markdown code mark a paste leaves on a log's first or last line.
Patterns are written against the engine's own message, so the wrapping goes first.
"""

from __future__ import annotations

import json
import re

import msgspec

# CSI codes, and the string commands: OSC (titles, links), and DCS, SOS, PM and APC, which
# carry Buildkite's per-line timestamps ("ESC _ bk;t=1596549410231 BEL"); then any other escape.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]P^_X][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)|[@-Z\\-_])")
_CARET_ANSI = re.compile(r"\^\[\[[0-?]{0,16}[ -/]{0,4}[@-~]")  # the same codes in caret notation (cat -v, less), pasted as text

# Prefixes that wrap a message, stripped repeatedly from the start of the line.
_PREFIXES = re.compile(
    r"""^(?:
      [\w.-]{1,64}\ +\|\ ?                                                   # docker compose: "vllm-1  | ", "ollama  | "
    | >\ (?=.)                                                               # a Markdown quote: a log pasted into a reply as "> line" (an indented frame too)
    | ▎(?:\ |$)                                                           # a quote bar, as some chat and document tools copy a quoted block: "▎ line"
    | [A-Za-z]{3}\ {1,2}\d{1,2}\ \d\d:\d\d:\d\d\ (?:[\w.-]{1,64}\ )?(?P<journal>[\w.@-]{1,64}\[\d{1,10}\]):\ ?  # syslog / journalctl: "Jun 16 20:53:56 host ollama[13938]: "
    | \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\ (?:std(?:out|err)\ [FP]\ |-\ (?=\S))?  # k8s CRI / kubectl; ComfyUI's own "2025-06-26T20:41:20.827229 - "
    | (?P<supervisor>\d{4}-\d\d-\d\d\ \d\d:\d\d:\d\d(?:[.,]\d+)?\ (?=[A-Z(\[]))                           # a supervisor's "2024-07-11 21:46:49 " before the engine's own header
    | \d{4}-\d\d-\d\d\ \d\d:\d\d:\d\d(?:[.,]\d+)?\ \|\ (?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\ \|\ [\w.-]{1,64}\ \|\ ?  # "%(asctime)s | %(levelname)s | %(name)s | ": FastChat's workers (their stderr relayed line by line), fairseq, metaseq
    | \[pod/[\w.-]{1,253}/[\w.-]{1,63}\]\                                    # kubectl logs --prefix: "[pod/vllm-0/vllm] "
    | bk;t=\d{10,16}\ ?                                                       # Buildkite's timestamp, pasted without the escape codes around it
    | (?:INFO|WARN|ERROR|DEBUG)\ {1,2}PyProcess\ W-\d{1,6}-[\w.-]{1,128}-std(?:out|err):\ ?  # DJL Serving relaying its Python worker: "WARN  PyProcess W-252-model-stderr: "
    | \[\d{1,5},\d{1,5}\]<std(?:out|err)>:                                         # Open MPI's mpirun --tag-output: "[1,0]<stdout>:"
    | (?P<export>(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY))\ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\ \[resource\.labels\.\w{1,40}:\ [^\]]{1,100}\]\   # Google Cloud Logging export: "INFO 2025-...Z [resource.labels.containerName: vllm] "
    | (?P<stamp>\[)\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?P<stage>(?:\ [\w-]{1,16}){0,3})\]\ ?  # SGLang "[2024-01-01 00:00:00 TP0]"
    | (?P<origin>\(\w[\w-]{0,63}(?:,?\ \w{1,16}=[\w.:]{1,45}){0,3}\)|\(\w[\w-]{0,63}\([^()]{0,64}\)(?:,?\ \w{1,16}=[\w.:]{1,45}){1,3}\)
                 |\(pid=(?:\d{1,10}|[a-z_]{1,16})(?:,\ ip=[\w.:]{1,45})?\)|\[rank\d{1,5}\]:|\[Stage-\d{1,3}\]
                 |\d{1,5}:(?=\ (?:\ {2,4}File\ "|\ {4}\S|Traceback\ \(|[\w.]{1,80}(?:Error|Exception):|\[rank\d|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\b)))\ ?
        # vLLM "(EngineCore_DP0 pid=1)", Ray's "(Actor pid=9, ip=10.0.0.2)", with the actor's repr where it has one
        # ("(ActorWorker(reference-0) pid=7, ip=...)") and in Ray 1's form "(pid=3047)", "(pid=raylet)";
        # torch.distributed "[rank0]:"; vLLM-Omni "[Stage-0]"; Slurm's task label (srun --label, "0: ") before a
        # traceback, an exception or a logging record
    | (?P<level>INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\ \d\d-\d\d\ \d\d:\d\d:\d\d(?:\.\d+)?\ (?:\[[^\]]{1,80}\]|[\w./-]{1,80}:\d+\])\ ?  # vLLM logging header
    | \[[\w.-]{1,32}\]\ (?=\(\w[\w-]{0,63}(?:,?\ \w{1,16}=[\w.:]{1,45}){1,3}\)\ |(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\ \d\d-\d\d\ \d\d:)  # a runner's label before a process tag or vLLM's header: "[vllm] (Worker_DP6_EP6 pid=3853) "
    | (?P<pid>\[\d{1,7}\])\ (?=\d{1,6}\.\d\d\.\d{3}\.\d{3}\ [IWED]\ )          # a supervisor's process-id tag before a llama.cpp header
    | \d{1,6}\.\d\d\.\d{3}\.\d{3}\ (?P<ggml_level>[IWED])\ (?=\S)                  # llama.cpp common_log with timestamps: "7.51.187.428 I "
    | (?P<uvicorn>INFO:\ {5}|ERROR:\ {4}|WARNING:\ {2}|DEBUG:\ {4}|CRITICAL:\ )(?=\S)  # uvicorn's level prefix, padded to 10 columns (FastAPI servers: TabbyAPI, vLLM's API server)
    | \[(?P<bracket_level>INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\]\ (?=\S)  # Python logging's "[%(levelname)s] %(message)s", as ComfyUI and many launchers format it
    )""",
    re.VERBOSE,
)

# Python's rich console logging (RichHandler): an optional "[12:00:01] " time column, the level
# left-justified in 8 columns, the message, and the source file's path right-aligned at the end.
# A message wider than its column goes on under it, each line indented to the message column.
_RICH_LEVEL = re.compile(r"(?:\[\d\d:\d\d:\d\d(?:[.,]\d{1,6})?\] )?(DEBUG|INFO|WARNING|ERROR|CRITICAL) {1,8}(?=\S)")
_RICH_PATH = re.compile(r"(?<=\S) {2,}[\w.-]{1,80}\.py:\d{1,6} *$")
_RICH_TAIL = 120  # the path column is looked for in a line's last characters only

# GitHub's web view of an Actions log links every number that matches a line of the log to that
# line; a copy of the rendered page keeps the links in Markdown, inside the text:
# "line 2:  23[57](https://github.com/o/r/runs/1?check_suite_focus=true#step:6:58) Killed".
_ACTIONS_LINE_LINK = re.compile(r"\[(\d{1,9})\]\(https://github\.com/[^()\s]{1,400}#step:\d{1,4}:\d{1,9}\)")
_RAY_REPEATED = re.compile(r" ?\[repeated \d{1,9}x across cluster\]$")
_STAGE = re.compile(r"(?: (?:TP|DP|PP|EP)\d{1,5}){1,3}")  # the parallel ranks SGLang puts in its header
_JSON_MESSAGE_KEYS = ("message", "msg", "log", "MESSAGE", "textPayload", "text")

# Words that make a message error-ish, lower-case: the scan's events and fuzzy gate are built from
# them, and a line whose prompt was cut out stays an error line only if it still holds one.
ERRORISH_WORDS = ("error", "exception", "out of memory", "failed", "not enough", "insufficient",
                  "cannot allocate", "unable to allocate", "killed")

# A message logged at error level, once the wrapping is gone: "ERROR text_generation_launcher:",
# Go's slog "level=ERROR", glog "E1129 10:00:00.123", "[ERROR]", TensorRT-LLM "[TensorRT-LLM][ERROR]"
# and "[TRT-LLM] [RANK 1] [E]", LMDeploy's TurboMind "[TM][ERROR]", a compiler's or linker's
# "collect2: error: " (a JIT build that failed).
_ERROR_LEVEL_AT_START = re.compile(
    r"(?:ERROR|CRITICAL|FATAL)\b|E\d{4}\ \d\d:\d\d:\d\d|\[(?:ERROR|CRITICAL|FATAL)\]|\[TensorRT-LLM\]\[ERROR\]|\[TM\]\[(?:ERROR|FATAL)\]"
    r"|[\w./+-]{1,80}:\ (?:fatal\ )?error:\ "
)
_LEVEL_HEAD = 256  # a level written inside a message is looked for in its first characters
_ERROR_LEVELS = frozenset({"ERROR", "CRITICAL"})
_INFO_LEVELS = frozenset({"INFO", "DEBUG"})
_WARNING_LEVELS = frozenset({"WARNING", "WARN"})
_GGML_LEVELS = {"E": "ERROR", "W": "WARNING", "I": "INFO", "D": "DEBUG"}  # llama.cpp's one-letter levels
# The program's own level at the start of its message: Rust's tracing after its timestamp, then
# its target ("  INFO text_generation_launcher: "), or Python's "INFO:root:". Not a relay's
# "INFO [child stdout] ... E ..." (Jan), whose level is the relay's, not the line's.
_INFO_AT_START = re.compile(r" {0,2}(?:INFO|DEBUG)(?::| [\w.:]{1,120}: )")
_INFO_INSIDE = re.compile(r"\blevel=(?:INFO|DEBUG|info|debug)\b")  # Go's slog (Ollama)
_ERROR_LEVEL_INSIDE = re.compile(r"\[TRT-LLM\](?:\ \[RANK\ \d+\])?\ \[E\]|\blevel=(?:ERROR|FATAL|error|fatal)\b")


class Message(msgspec.Struct, eq=False):
    """A line's message, the process or rank tag it came with, and whether it was logged as
    an error."""

    text: str
    origin: str | None = None
    error_level: bool = False
    # A logging header (a level or a time the logger wrote) was taken off: the line starts a
    # record. Transport prefixes (Docker Compose, Kubernetes, a process or rank tag, a Markdown
    # quote) are added to every physical line, so a message split over lines carries them on
    # each piece and they say nothing about where a record starts.
    header: bool = False
    # The raw line began with that header, nothing before it: a line that begins with the
    # same bytes begins with a header too.
    header_first: bool = False
    # A rich console record (level column, message, path column): the columns its message
    # goes on at, on the lines under it, when it is wider than its column; 0 for other lines.
    hanging: int = 0
    # A header taken off names a level below warning (INFO, DEBUG, llama.cpp's "I").
    info_header: bool = False
    # A header taken off names the warning level: the program reported what it logged there
    # (a traceback too) as something it handled.
    warning_header: bool = False
    # The engine whose own logging header was taken off: vLLM's logger writes "ERROR 05-06
    # 18:20:49 [engine.py:448] " (level, month-day, time, source file and line), and so does a
    # program that logs through it (early SGLang), which is why it is weaker evidence than frames.
    writer: str | None = None

    @property
    def informational(self) -> bool:
        """The program logged the line below warning level: a header said so, or the message
        starts with the level (Rust's tracing after its timestamp, as TGI writes it; Python's
        "INFO:root:") or names it inside (Go's "level=INFO", as Ollama writes it)."""
        if self.error_level:
            return False
        head = self.text[:_LEVEL_HEAD]
        return self.info_header or _INFO_AT_START.match(head) is not None \
            or "level=" in head and _INFO_INSIDE.search(head) is not None


def normalize(line: str) -> str:
    """The message a line carries, without colour codes, wrappers or JSON framing."""
    return parse_line(line).text


def parse_line(line: str) -> Message:
    """The message of a line with what its wrapping said: the innermost process tag
    ("(EngineCore_DP0 pid=1)", "[rank0]:") and an error level."""
    raw = line
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if "^[[" in line:
        line = _CARET_ANSI.sub("", line)
    line = line.rstrip("\r\n")
    stripped = line.lstrip()
    if stripped.startswith("{") and stripped.endswith("}"):
        line = _json_message(stripped, depth=0) or line
        if "\x1b" in line:  # the colours a container's program printed, kept in its JSON record
            line = _ANSI.sub("", line)
    if "](https://github.com/" in line:
        line = _ACTIONS_LINE_LINK.sub(r"\1", line)
    if "`" in line:  # before the prefixes ("`[rank0]: ..."), and again after them ("vllm-1  | `Traceback")
        line = _without_code_mark(line)
    if line.endswith("^M"):  # a carriage return as a pager or `cat -v` shows it, pasted as two characters
        line = line[:-2]
    if line.endswith("across cluster]"):  # Ray's log deduplication: "... [repeated 3x across cluster]"
        line = _RAY_REPEATED.sub("", line)
    origin, header, header_first, writer = None, False, False, None
    levels: set[str] = set()  # the levels that the headers taken off name
    first = raw.startswith(line)  # nothing was taken off its start (colour codes, JSON framing)
    while True:
        match = _PREFIXES.match(line)
        if match is None or not match.end():
            break
        level = match.group("level") or match.group("bracket_level") or _GGML_LEVELS.get(match.group("ggml_level")) \
            or (match.group("uvicorn") or "").rstrip(": ")
        if match.group("level"):
            writer = "vllm"
        if level or match.group("stamp") or match.group("supervisor") or match.group("export"):
            header = True
            header_first = header_first or first
            if level:
                levels.add(level)
        first = False
        if match.group("origin") or match.group("pid") or match.group("journal"):
            origin = (match.group("origin") or match.group("pid") or match.group("journal")).rstrip(":")
        elif match.group("stage") and _STAGE.fullmatch(match.group("stage")):
            origin = match.group("stage").strip()  # SGLang's "DP0 TP1"
        line = line[match.end():]
    if "`" in line:
        line = _without_code_mark(line)
    if line.startswith("**") and (bold_end := line.find("**", 2)) > 2:
        # A line a chat reply set in bold ("**RuntimeError: CUDA out of memory.** Tried to ..."):
        # the markers are the reply's, not the log's.
        line = line[2:bold_end] + line[bold_end + 2:]
    hanging = 0
    rich = _RICH_LEVEL.match(line)
    if rich is not None:
        path = _RICH_PATH.search(line, max(rich.end(), len(line) - _RICH_TAIL))
        if path is not None:
            hanging = rich.end()
            header = True
            header_first = header_first or first
            levels.add(rich.group(1))
            line = line[hanging:path.start()]
    return Message(line, origin, bool(levels & _ERROR_LEVELS) or _logged_as_error(line), header, header_first, hanging,
                   bool(levels & _INFO_LEVELS), bool(levels & _WARNING_LEVELS), writer)


def _without_code_mark(line: str) -> str:
    """A line without the Markdown code mark a paste left on it: the reporter opened inline code
    or a fence on the log's first line, or closed it on its last ("`Traceback (most recent call
    last):", "Killed`", "...PYTORCH_CUDA_ALLOC_CONF```"). Only a line with an odd number of
    backticks loses the run at its start (after its indentation) or else at its end; a message's
    own pair of marks ("set `max_split_size_mb`") is left alone."""
    if line.count("`") % 2 == 0:
        return line
    body = line.lstrip()
    if body.startswith("`"):
        return line[:len(line) - len(body)] + body.lstrip("`")
    if line.rstrip().endswith("`"):
        return line.rstrip().rstrip("`")
    return line


def continues_record(text: str, hanging: int) -> str | None:
    """The text a line adds to a rich console record whose message goes on at column
    ``hanging`` (see :class:`Message`), or None when the line is no part of it."""
    if len(text) <= hanging or not text[hanging:hanging + 1].strip() or text[:hanging].strip():
        return None
    return text[hanging:].rstrip()


def _logged_as_error(message: str) -> bool:
    """The level is in a message's first words; a 64 KiB line is not searched to its end for
    it, and the search inside runs only where its literal is (a regex search of an alternation
    tries every position)."""
    if _ERROR_LEVEL_AT_START.match(message):
        return True
    head = message[:_LEVEL_HEAD]
    return ("[TRT-LLM]" in head or "level=" in head) and _ERROR_LEVEL_INSIDE.search(head) is not None


def _json_message(text: str, depth: int) -> str | None:
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
        return None
    if not isinstance(record, dict):
        return None
    fields = record.get("fields")
    candidates = [record] + ([fields] if isinstance(fields, dict) else [])
    for holder in candidates:
        for key in _JSON_MESSAGE_KEYS:
            value = holder.get(key)
            if isinstance(value, str):
                value = value.rstrip("\r\n")
                inner = value.strip()
                if depth == 0 and inner.startswith("{") and inner.endswith("}"):
                    return _json_message(inner, depth + 1) or value
                return value
    return None

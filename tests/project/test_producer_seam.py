"""The producers' seam: what a producer names (its processes, lanes, tids, files, categories, flows,
operator and task names) is written in the producers' folder and the database reader only; the rest of
the package, the synthetic trace generator included, asks them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import timelineview

PACKAGE = Path(timelineview.__file__).parent
# The producers and the database reader. The synthetic traces, which write each producer's format, ask
# the producers' modules too (real samples, not they, check those names against the producers' files).
ALLOWED = ("producers/", "model/database/")
# Longer text is a sentence for the user (its wording is the producers' too, but asked elsewhere);
# a regular expression is a rule, whatever its length.
NAME_LENGTH = 60
PRODUCER_NAMES = re.compile(
    r"ascend hardware|^hccl$|overlap analys|step trace|aicore op|ascend op|aicpu op|^communication op$|"
    r"host cpu op|activity op|scope name|gpuops|"
    r"^(?:100000|100001|100002|100003|70000|7999|8000|8001|8002|9000|10000|11000|12000|13000)$|"
    r"msprof|trace_view|timeline_display|ascend_pytorch|profiler_info|prof_|info\.json|"
    r"async_npu|ac2g|^cpu_op$|^kernel$|gpu_mem|cuda_runtime|cuda_driver|user_annotation|profilerstep|"
    r"nccl|hcom|receive-op|ai_core|ai_vector|notify.wait|notify.record|plane\\s|memcpy_async|sdma|"
    r"kernel_details|memory_record\.csv|operator_memory\.csv|npu_module_mem\.csv|^input dims$|^input type$|"
    # the producers' argument names (args keys): spelled as written, so that a column title of ours that
    # reads the same words ("Task type") is not one; "link type" and "transport type" are also our tables'
    # column titles, left out
    r"(?-i:^Task Type$|^task type$|^src rank$|^dst rank$|^size\(Byte\)$|"
    r"^bandwidth\(GB/s\)$|^correlation$|^External id$|"
    # the hardware tasks', CANN calls', framework operators', plane tasks' and collectives' other args keys;
    # a collective's "wait_ns" and "count" read as our own figures' keys, left out
    r"^Model Id$|^Physic Stream Id$|^Stream Id$|^Task Id$|^Batch Id$|^Subtask Id$|^connection_id$|"
    r"^data size\(Byte\)$|^memcpy direction$|^Aicore Time\(ms\)$|^Total Cycle$|^Model Name$|"
    r"^Thread Id$|^Mode$|^item_id$|^Sequence number$|^Fwd thread id$|^Call stack$|"
    r"^notify_id$|^duration estimated\(us\)$|^stream id$|^task id$|^context id$|^rdma type$|^model id$|"
    r"^data_type$|^alg_type$|^group_name$|"
    # the overlap lanes' names, as written; the plain "Computing", "Communication" and "Free" lanes read as
    # our own derived lanes' and quantities' titles, left out
    r"^Communication\(Not Overlapped\)$|^Merged Computation Op$|^Pure Communication Op$|"
    r"^Merged Communication Op$|^Free Time$|^computation_op$|^communication_not_overlapped$|^free_time$)|"
    # thread names and their templates (an f-string's "Stream " part is a constant of its own, quoted when the
    # f-string writes JSON)
    r"^\"?(?:stream|thread|plane) (?:\{\}|\d+)?\"?$|^group (?:\{\} communication)?$|"
    # the device's counters: processes and series
    r"^ai core freq$|^npu mem$|^(?:app|device)/(?:hbm|ddr|memory)$|^hbm (?:\{\}|\d+)/(?:read|write)$|"
    # the prefixes of CANN's host API calls' names, the launch flows, the framework's range categories
    r"ascendcl@|runtime@|node@|model@|communication@|mstx@|hosttodevice|torch_to_npu|"
    r"^python_function$|^enqueue$|^dequeue$|"
    # the Step Trace lane's events, their categories and args, and the readers' patterns for them
    r"^(?:iteration|fp_bp time|iteration refresh) (?:\{\})?$|"
    r"^(?:iteration time|fp_bp time|iteration refresh|iteration id|fp start|bp end|iteration end)$|"
    r"iteration \(\\d|iteration id:|^reduce_(?:\{\}_\{\})?$|reduce (?:start|end) (?:\{\}|$)|data_aug bound",
    re.IGNORECASE,
)


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


def producer_names_in(path: Path) -> list[str]:
    """The string and bytes constants of a module (docstrings aside) that name a producer's thing."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))) or id(node) in docs:
            continue
        # bytes are the names a byte scanner looks for in the file
        text = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
        if (len(text) <= NAME_LENGTH or text.startswith("^")) and PRODUCER_NAMES.search(text):
            found.append((node.lineno, f"{node.lineno}: {text!r}"))
    return [text for _, text in sorted(found)]


def test_the_scan_finds_producer_names(tmp_path):
    """The scan itself: names in code are found, the same words in a docstring or a sentence are not."""
    module = tmp_path / "m.py"
    module.write_text('"""Reads the Ascend Hardware process."""\n'
                      'A = "ascend hardware"\nB = re.compile(r"^msprof_(\\d+)\\.json$")\nC = "100000"\n'
                      'D = "a long sentence for the user that happens to mention the Ascend Hardware process"\n'
                      'E = "compute"\nF = "memory_record.csv"\nG = "MEMORY_RECORD"\n'
                      'H = b"Task Type"\nI = {"Task Type": 1}\nJ = ("Task type", "task type")\n'
                      'K = ("Free Time", "Communication(Not Overlapped)")\nL = f"Stream {s}"\n'
                      'M = ("Free", "Computing", "Communication", "Plane count")\n'
                      'N = re.compile(r"^(?:model \\d+ )?iteration (\\d+)$")\nO = "AI Core Freq"\n'
                      'P = "the highest value of the card\'s AI Core Freq counter"\nQ = ("APP/HBM", "HBM 0/Read")\n'
                      'R = ("Iteration {}", "FP Start")\nS = f\'"Thread {t}"\'\nT = "Iteration"\n'
                      'U = ("Reduce_{}_{}", "Data_aug Bound {}", "Reduce")\nV = f"AscendCL@{call}"\n'
                      'W = (f"HostToDevice{c}", "torch_to_npu", "enqueue", "python calls")\n'
                      'X = {"Physic Stream Id": 1, "connection_id": 2, "Mode": 3}\n'
                      'Y = ("Task ID", "Thread id", "mode", "wait_ns")\n'
                      'Z = f\'{{"{key}": 1, "Mode": "ACL_OP"}}\'\n', encoding="utf-8")
    # line 10: an args key of the producers; the column title "Task type" beside it is ours. Line 13: a lane
    # template's constant part. Not caught: line 14, the producer's plain overlap lanes, which read as our
    # titles; line 17, a sentence naming the counter; line 21 and line 22's "Reduce", a word alone; line 24's
    # "python calls". Line 25: args keys as written; line 26's titles that read the same words are not. Line 27:
    # a key inside JSON text is a piece of it, not a key (the writers take the keys from the producers)
    found = [f.split(":")[0] for f in producer_names_in(module)]
    assert found == ["2", "3", "4", "7", "9", "10", "11", "12", "12", "13", "15", "16", "18", "18", "19", "19", "20",
                     "22", "22", "23", "24", "24", "24", "25", "25", "25"]


def test_producer_names_stay_behind_the_seam():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(ALLOWED):
            continue
        names = producer_names_in(path)
        if names:
            found[rel] = names
    assert found == {}

"""One card's analysis as a summary on disk (metrics.md §10), and back.

``write_card_summary`` turns a loaded card and its analysis into a folder: ``card.json`` (the
manifest: the §5 card object exactly as ``stats`` computes it, the comparison rows, step windows,
operator and communication tables' text columns, the findings' inputs) and ``.npy`` columns (interval
sets, collective ends, numeric table columns, the level-of-detail pyramid). ``read_card_summary``
gives back a :class:`SummaryCard` with the same analysis objects the session builds from a store, so
the cluster-level results are computed by the same functions. No Qt.

Nothing read is trusted (``model/summary/guarded_files``): the manifest is read whole only when its
digest is the one the index records for the card, ``details.json`` only when its digest is the one the
manifest records, and the columns only when their CRCs and headers match the manifest's layout.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import orjson

from timelineview.analysis.card_analysis import CardAnalysis
from timelineview.analysis.card_results.registry import CARD_RESULTS
from timelineview.analysis.card_results.section import rows_in
from timelineview.analysis.cluster.clock_offsets import collective_ends
from timelineview.analysis.communication import CardCommunication, CommOps, Links, MainPlane
from timelineview.analysis.communication.bandwidth import OperatorBandwidth, PacketSizes
from timelineview.analysis.critical_path.card_inputs import KEY as PATH_INPUTS_KEY
from timelineview.analysis.critical_path.card_inputs import card_path_inputs
from timelineview.analysis.derived import DerivedIntervals
from timelineview.analysis.findings.signal_facts import signal_facts
from timelineview.analysis.intervals import Intervals
from timelineview.analysis.operators import CardOperators, OperatorTable
from timelineview.analysis.steps import StepWindow
from timelineview.analysis.summaries import kept_report
from timelineview.analysis.summaries.code_stamp import CodeStamp, current_stamp
from timelineview.analysis.summaries.manifest_schema import details_problem, manifest_problem
from timelineview.analysis.summaries.pyramid import Pyramid, build_pyramid, lane_intervals
from timelineview.model.store.report import LoadReport
from timelineview.model.store.trace_store import TraceStore
from timelineview.model.summary.columns import ColumnReader, ColumnWriter
from timelineview.model.summary.guarded_files import (
    DETAILS_MAX_BYTES,
    MANIFEST_MAX_BYTES,
    SummaryFileError,
    checked_name,
    digest,
    read_inside,
)
from timelineview.producers import wording_of
from timelineview.producers.wording import ASCEND_WORDING, reword

FORMAT = 2  # 2: version, code stamp, digests and checked column layouts (a format-1 card is made again)
MANIFEST = "card.json"  # what the comparison of thousands of cards reads: small
DETAILS = "details.json"  # the §5 card object, table labels, findings inputs: read by stats and findings
DERIVED_SETS = ("compute", "communication", "overlapped", "pure_communication", "free", "idle_gaps",
                "idle_gap_communication", "idle_gap_free")
DERIVED_TITLES = {"compute": "Compute", "communication": "Communication", "pure_communication": "Pure communication",
                  "free": "Free", "idle_gaps": "Idle AI Core gaps"}
EVIDENCE_SPANS = 3
OP_COLUMNS = ("slice", "start", "elapse", "transit", "wait", "synchronization", "idle", "tasks", "step")  # CommOps
LINK_COLUMNS = ("src", "dst", "bytes", "transit", "count")  # Links
MAIN_PLANE_COLUMNS = ("plane", "transit", "wait", "synchronization", "idle")  # CommOps.main
BANDWIDTH_COLUMNS = ("op", "bytes", "transit", "count", "large")  # OperatorBandwidth
PACKET_COLUMNS = ("row", "size", "count", "transit")  # OperatorBandwidth.packets
TABLE_COLUMNS = ("ids", "count", "total_ns", "min_ns", "max_ns")  # OperatorTable
JSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY
PRODUCER_KEY = "producer"  # the manifest's field naming the card's producer (its classification's mode)


@dataclass
class SummaryCard:
    """A card as its summary holds it (what ``AnalysisSession`` keeps per card, without the store).
    The tables are read when first asked for: the comparison of thousands of cards needs only the manifests."""

    folder: Path
    manifest: dict
    columns: ColumnReader

    @cached_property
    def derived(self) -> DerivedIntervals | None:
        m = self.manifest
        if "derived" not in m:
            return None
        cols = self.columns.get_many([f"derived.{n}.{end}" for n in DERIVED_SETS for end in ("starts", "ends")])
        for n in DERIVED_SETS:
            starts, ends = cols[f"derived.{n}.starts"], cols[f"derived.{n}.ends"]
            if starts.dtype != np.int64 or ends.dtype != np.int64 or starts.ndim != 1 or starts.shape != ends.shape:
                raise SummaryFileError(f"{self.folder}: derived.{n} is not two int64 columns of one length")
        sets = {n: Intervals(cols[f"derived.{n}.starts"], cols[f"derived.{n}.ends"]) for n in DERIVED_SETS}
        return DerivedIntervals(span=tuple(m["derived"]["span"]), min_gap_ns=m["derived"]["min_gap_ns"],
                                producer=self.producer, **sets)

    @property
    def producer(self) -> str:
        """The card's producer as its classification named it ("" in a summary made before it was kept: the
        Ascend words)."""
        return self.manifest.get(PRODUCER_KEY) or ""

    @cached_property
    def steps(self) -> list[StepWindow]:
        return [StepWindow(**s) for s in self.manifest.get("steps") or []]

    @cached_property
    def operators(self) -> CardOperators | None:
        ops = self.details.get("operators")
        if not ops:
            return None
        return CardOperators(_table(self.columns, "operators.by_name", ops["by_name"]),
                             _table(self.columns, "operators.by_type", ops["by_type"]))

    @cached_property
    def communication(self) -> CardCommunication | None:
        return _communication(self.columns, self.manifest, self.details.get("communication"))

    @property
    def card(self) -> str:
        return self.manifest["card"]

    @property
    def rank(self) -> int | None:
        return self.manifest["rank"]

    @property
    def worker(self) -> str:
        return self.manifest.get("worker", "")

    @cached_property
    def load_report(self) -> LoadReport | None:
        """The report of the load this summary was made from (None for a summary made before it was kept)."""
        return kept_report.manifest_report(self.manifest)

    @cached_property
    def details(self) -> dict:
        """``details.json``, read only when its digest is the manifest's."""
        name = checked_name(self.manifest.get("details"), "details file")
        data = read_inside(self.folder, (name,), DETAILS_MAX_BYTES)
        if digest(data) != self.manifest.get("details_digest"):
            raise SummaryFileError(f"{self.folder / name}: its digest is not the one card.json records "
                                   "(changed or damaged since it was written)")
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise SummaryFileError(f"{self.folder / name}: {exc}") from None
        problem = details_problem(doc) if isinstance(doc, dict) else "it is not an object"
        if problem:
            raise SummaryFileError(f"{self.folder / name}: not a card's details: {problem}")
        return doc

    @property
    def stamp(self) -> CodeStamp:
        """The timelineview version and code stamp that made this summary."""
        return CodeStamp(str(self.manifest.get("version", "")), str(self.manifest.get("code", "")))

    @property
    def document(self) -> dict:
        """The §5 card object (``clock_offset_us`` 0 until a cluster sets it)."""
        return self.details["document"]

    def result(self, name: str) -> list[dict] | None:
        """The rows of declared result ``name`` as summarised (in the card object; checked when read), None
        when the summary holds none."""
        return rows_in(self.document, CARD_RESULTS[name])

    @property
    def collectives(self) -> tuple[list[str], np.ndarray]:
        """(names, ends) of the communication operators in start order, for clock offsets."""
        return self.manifest["collective_names"], np.array(self.manifest["collective_ends"], dtype=np.int64)

    def pyramid(self) -> Pyramid:
        """The level-of-detail pyramid (levels memory-mapped)."""
        p = self.manifest["pyramid"]
        names = [f"pyramid.{k}" for k in range(p["levels"])]
        cols = self.columns.get_many(names)
        levels = [cols[n] for n in names]
        for n, level in zip(names, levels):
            if level.dtype != np.uint8 or level.ndim != 2 or level.shape[0] != len(p["rows"]):
                raise SummaryFileError(f"{self.folder}: column {n} is {level.dtype} {level.shape}, not a pyramid "
                                       f"level of {len(p['rows'])} rows")
        return Pyramid(p["t0"], p["t1"], p["rows"], levels)


# ------------------------------------------------------------------------------------------ write
def _put_intervals(w: ColumnWriter, name: str, iv: Intervals) -> None:
    w.put(f"{name}.starts", iv.starts)
    w.put(f"{name}.ends", iv.ends)


def _put_table(w: ColumnWriter, name: str, table: OperatorTable) -> dict:
    for col in TABLE_COLUMNS:
        w.put(f"{name}.{col}", getattr(table, col))
    return {"labels": table.labels, "compute_total_ns": int(table.compute_total_ns)}


def _put_communication(w: ColumnWriter, cc: CardCommunication | None) -> dict | None:
    if cc is None:
        return None
    ops, links = cc.ops, cc.links
    for col in OP_COLUMNS:
        w.put(f"comm.ops.{col}", getattr(ops, col))
    for col in LINK_COLUMNS:
        w.put(f"comm.links.{col}", getattr(links, col))
    if ops.main is not None:
        for col in MAIN_PLANE_COLUMNS:
            w.put(f"comm.main.{col}", getattr(ops.main, col))
    meta = {"op_names": ops.name, "transport": links.transport, "link_type": links.link_type,
            "main_plane": ops.main is not None}
    if cc.local_links is not None:
        for col in LINK_COLUMNS:
            w.put(f"comm.local.{col}", getattr(cc.local_links, col))
        meta["local_links"] = {"transport": cc.local_links.transport, "link_type": cc.local_links.link_type}
    if cc.bandwidth is not None:
        for col in BANDWIDTH_COLUMNS:
            w.put(f"comm.bandwidth.{col}", getattr(cc.bandwidth, col))
        for col in PACKET_COLUMNS:
            w.put(f"comm.packets.{col}", getattr(cc.bandwidth.packets, col))
        meta["bandwidth"] = {"transport": cc.bandwidth.transport}
    return meta


def _signals(store: TraceStore, a: CardAnalysis) -> dict | None:
    """What the findings read of the slices and interval sets, computed here: the client then reads
    kilobytes per card, not the sets (megabytes for a large card)."""
    return signal_facts(store, a)


def pyramid_rows(store: TraceStore, derived: DerivedIntervals | None) -> list[tuple[str, Intervals]]:
    """The rows a card's overview draws: its derived sets, then each lane holding slices."""
    wording = wording_of(derived.mode) if derived is not None else ASCEND_WORDING  # the card's own words
    rows = [(reword(title, wording), getattr(derived, name)) for name, title in DERIVED_TITLES.items()] \
        if derived else []
    sl = store.slices
    per_lane = lane_intervals(sl.lane, sl.start, sl.end, len(store.lanes))
    rows += [(store.lane_full_name(k), iv) for k, iv in enumerate(per_lane) if len(iv)]
    return rows


def write_card_summary(folder: Path, store: TraceStore, a: CardAnalysis, comparison_error: str,
                       extra: dict) -> str:
    """Write the summary of one analysed card into ``folder`` (created); returns the digest of the
    ``card.json`` written (what the index records). ``extra``: fields the caller adds (key, worker, timings)."""
    folder.mkdir(parents=True, exist_ok=True)
    w = ColumnWriter(folder)
    stamp = current_stamp()
    manifest: dict = {"format": FORMAT, "card": store.card, "rank": store.rank, **extra,
                      "version": stamp.version, "code": stamp.code,
                      "error": a.error, "details": DETAILS, "comparison_steps": a.comparison_steps,
                      "comparison_error": comparison_error,
                      "steps": [dataclasses.asdict(s) for s in a.steps or []],
                      "t_origin": store.t_origin, "t_end": store.t_end,
                      kept_report.KEY: kept_report.report_json(store.report)}  # the Load report, stats' stderr
    d = a.derived
    if d is not None:
        for name in DERIVED_SETS:
            _put_intervals(w, f"derived.{name}", getattr(d, name))
        manifest["derived"] = {"span": list(d.span), "min_gap_ns": d.min_gap_ns}
    if a.classification is not None:
        manifest[PRODUCER_KEY] = a.classification.mode  # the device's words of a card read from its summary
        names, ends = collective_ends(store, a.classification)
        manifest["collective_names"] = names  # with their ends: clock offsets need no column file
        manifest["collective_ends"] = ends.tolist()
    details: dict = {"document": a.document, "operators": None}
    if a.operators is not None:
        details["operators"] = {"by_name": _put_table(w, "operators.by_name", a.operators.by_name),
                                "by_type": _put_table(w, "operators.by_type", a.operators.by_type)}
    details["communication"] = _put_communication(w, a.communication)
    details["signals"] = _signals(store, a)
    if a.classification is not None:  # what the critical path needs beyond U(compute) (metrics.md §12)
        details[PATH_INPUTS_KEY] = card_path_inputs(store, a.classification, a.steps or [],
                                                     a.communication, a.kernels).document()
    pyr = build_pyramid(pyramid_rows(store, d), store.t_origin, max(store.t_end, store.t_origin + 1))
    for k, level in enumerate(pyr.levels):
        w.put(f"pyramid.{k}", level)
    manifest["pyramid"] = {"t0": pyr.t0, "t1": pyr.t1, "rows": pyr.rows, "levels": len(pyr.levels)}
    manifest["columns"] = w.close()
    manifest["column_layout"] = w.layout  # where each column's data lies: read without parsing the zip
    details_bytes = orjson.dumps(details, option=JSON_OPTIONS)
    (folder / DETAILS).write_bytes(details_bytes)
    manifest["details_digest"] = digest(details_bytes)
    manifest_bytes = orjson.dumps(manifest, option=JSON_OPTIONS)
    (folder / MANIFEST).write_bytes(manifest_bytes)  # last: the card is complete
    return digest(manifest_bytes)


# ------------------------------------------------------------------------------------------- read
def read_manifest_bytes(folder: Path) -> bytes:
    """The bytes of a card's manifest (a regular file inside ``folder``, of bounded size)."""
    return read_inside(folder.parent, (folder.name, MANIFEST), MANIFEST_MAX_BYTES)


def parse_manifest(data: bytes, where: Path) -> dict:
    """A manifest's document, checked to be one of this format (else ``SummaryFileError``)."""
    try:
        m = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise SummaryFileError(f"{where}: {exc}") from None
    if not isinstance(m, dict) or not isinstance(m.get("card"), str):
        raise SummaryFileError(f"{where}: not a card summary's manifest")
    if m.get("format") != FORMAT:
        raise SummaryFileError(f"{where}: written by another timelineview (card format {m.get('format')!r}, "
                               f"this one reads {FORMAT}); summarize again")
    if problem := manifest_problem(m):
        raise SummaryFileError(f"{where}: not a card summary's manifest: {problem}")
    return m


def read_manifest(folder: Path) -> dict | None:
    """The manifest of a card summary, or None when there is none (or it is unreadable)."""
    try:
        return parse_manifest(read_manifest_bytes(folder), folder / MANIFEST)
    except (OSError, SummaryFileError):
        return None


def _group(cols: ColumnReader, prefix: str, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """{name: column ``prefix.name``}, read together."""
    got = cols.get_many([f"{prefix}.{n}" for n in names])
    return {n: got[f"{prefix}.{n}"] for n in names}


def _table(cols: ColumnReader, name: str, meta: dict) -> OperatorTable:
    arrays = _group(cols, name, TABLE_COLUMNS)
    return OperatorTable(meta["labels"], compute_total_ns=meta["compute_total_ns"], **arrays)


def _communication(cols: ColumnReader, m: dict, meta: dict | None) -> CardCommunication | None:
    if meta is None:
        return None
    ops = _group(cols, "comm.ops", OP_COLUMNS)
    links = _group(cols, "comm.links", LINK_COLUMNS)
    main = MainPlane(**_group(cols, "comm.main", MAIN_PLANE_COLUMNS)) if meta.get("main_plane") is True else None
    # a summary written before local links and bandwidth were kept has neither: null in the document
    local = meta.get("local_links")
    local_links = Links(transport=local["transport"], link_type=local["link_type"],
                        **_group(cols, "comm.local", LINK_COLUMNS)) if isinstance(local, dict) else None
    bw = meta.get("bandwidth")
    bandwidth = OperatorBandwidth(transport=bw["transport"], packets=PacketSizes(**_group(cols, "comm.packets",
                                                                                         PACKET_COLUMNS)),
                                  **_group(cols, "comm.bandwidth", BANDWIDTH_COLUMNS)) if isinstance(bw, dict) else None
    return CardCommunication(m["card"], m["rank"], None, CommOps(name=meta["op_names"], main=main, **ops), None,
                             Links(transport=meta["transport"], link_type=meta["link_type"], **links), local_links,
                             bandwidth)


def read_card_summary(folder: Path, manifest: dict | None = None) -> SummaryCard:
    """The card summary in ``folder`` (``manifest`` when already read)."""
    m = manifest if manifest is not None else read_manifest(folder)
    if m is None:
        raise OSError(f"{folder}: no readable {MANIFEST}")
    return SummaryCard(folder, m, ColumnReader(folder, m.get("columns", {}), m.get("column_layout")))


def read_indexed_card(root: Path, entry: dict, run: str) -> SummaryCard:
    """The card an index ``entry`` names, verified: its folder a plain name inside ``root``, its manifest's
    digest the entry's, and the manifest made by the run the entry names (``run``: the index's run; a card
    kept from an earlier run names that run in its entry). Else ``SummaryFileError`` naming the file."""
    name = checked_name(entry.get("dir"), "card folder")
    folder = root / name
    data = read_manifest_bytes(folder)
    if digest(data) != entry.get("manifest"):
        raise SummaryFileError(f"{folder / MANIFEST}: its digest is not the one index.json records (changed, "
                               f"damaged, or written by another run of summarize than run {run})")
    m = parse_manifest(data, folder / MANIFEST)
    if m.get("run") != entry.get("run"):
        raise SummaryFileError(f"{folder / MANIFEST}: made by run {m.get('run')!r}, the index names run "
                               f"{entry.get('run')!r} for it")
    return read_card_summary(folder, m)

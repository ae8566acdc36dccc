"""Flow binding by the Chrome rules: enclosing slice, next slice, fan-out, dangling ends."""

from __future__ import annotations

from timelineview.model import load

from ..tracefile import dump_events, x_event


def flow(ph, fid, pid, tid, ts, bp=None, cat="c"):
    e = {"ph": ph, "name": "f", "id": fid, "pid": pid, "tid": tid, "ts": ts, "cat": cat}
    if bp:
        e["bp"] = bp
    return e


def names(store, slices):
    return [store.strings[int(store.slices.name[i])] if i >= 0 else None for i in slices]


def test_binding_rules(tmp_path):
    events = [
        x_event("outer", 1, 1, 0.0, 100.0), x_event("inner", 1, 1, 10.0, 20.0),
        x_event("target", 2, 1, 50.0, 5.0), x_event("later", 2, 1, 70.0, 5.0),
        flow("s", "a", 1, 1, 15.0), flow("f", "a", 2, 1, 50.0, bp="e"),        # enclosing, enclosing
        flow("s", "b", 1, 1, 40.0), flow("f", "b", 2, 1, 60.0),                # next slice after 60
        flow("s", "c", 1, 1, 5.0), flow("t", "c", 1, 1, 12.0), flow("f", "c", 2, 1, 52.0, bp="e"),
        flow("s", "d", 1, 1, 1.0), flow("f", "d", 2, 1, 51.0, bp="e"), flow("f", "d", 2, 1, 71.0, bp="e"),
        flow("s", "e", 1, 1, 2.0),                                             # dangling
        flow("s", "a", 1, 1, 1.0, cat="other"),                                # same id, other cat: dangling
    ]
    [store] = load(dump_events(events, tmp_path / "t.json"))
    fl = store.flows
    edges = sorted(zip(fl.flow_id, names(store, fl.src_slice), names(store, fl.dst_slice)))
    assert edges == [
        ("a", "inner", "target"),
        ("b", "outer", "later"),
        ("c", "inner", "target"),   # t (inside inner) -> f
        ("c", "outer", "inner"),    # s -> t
        ("d", "outer", "later"),    # fan-out: one s, two f
        ("d", "outer", "target"),
    ]
    assert "2 flow point(s) have no other end" in store.report.warnings
    assert list(fl.of_slice(int(fl.dst_slice[0]))) != []


def test_flow_names_are_read_from_the_file_on_demand(tmp_path):
    """Names are not kept at load (torch_npu names most flows uniquely): the start point's
    name comes back from the file, per edge."""
    import json

    from timelineview.synthetic import CardSpec, generate_card

    target = tmp_path / "trace_view.json"
    generate_card(target, CardSpec(seed=6, steps=2, tasks_per_step=30), "msprof")
    events = json.loads(target.read_text())
    [store] = load(target)
    flows = store.flows
    assert len(flows) > 10
    for e in range(len(flows)):
        start = events[int(flows.src_event[e])]
        assert start["ph"] == "s" and start["ts"] and start["cat"] == store.strings[int(flows.cat[e])]
        assert store.flow_name(e) == start["name"]
    assert not any(s.startswith("HostToDevice") and s != "HostToDevice" for s in store.strings)

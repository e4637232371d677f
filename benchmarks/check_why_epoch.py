"""Cross-check `why`'s epoch-setting fixes against the brute-force search on a benchmark chat.

    python benchmarks/check_why_epoch.py [--messages 3000] [--profile ascii] [--markers 1,mid,last]

The brute force plans every value of every setting (0 to the number of tool messages plus one, no
cap); the closed form (analysis/epoch_model.py) must give the same fixes, field for field, for each
marker, under shorten_tools_epoch (1.2.6 and 2.1) and shorten_tools_epoch_increment, with default
settings and with small ones (several epochs, a compacted window). Prints one line per case, then
the number of mismatches; exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import chats  # noqa: E402

from inspector.core.analysis import fixes as fixes_module  # noqa: E402
from inspector.core.analysis.fixes import find_fixes  # noqa: E402
from inspector.core.analysis.replan import Replanner  # noqa: E402
from inspector.core.analysis.trace import trace  # noqa: E402
from inspector.core.inspection import open_inspection  # noqa: E402
from inspector.core.setup import Setup  # noqa: E402

SMALL = {
    "epoch_tool_call_threshold": "30",
    "epoch_full_tool_calls": "7",
    "epoch_compacted_tool_calls": "25",
    "epoch_size": "9",
    "epoch_increment_epochs_per_increase": "2",
    "epoch_increment_size_increase": "4",
    "epoch_increment_max_size": "30",
    "epoch_increment_max_compacted_tool_calls": "60",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--profile", default="ascii", choices=chats.PROFILES)
    parser.add_argument("--markers", default="1,mid,last")
    args = parser.parse_args()
    data, pairs = chats.build(args.messages, args.profile)
    path = Path(tempfile.mkdtemp()) / "chat.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    markers = [{"mid": pairs // 2, "last": max(1, pairs - 60)}.get(m) or int(m) for m in args.markers.split(",") if m]
    mismatches = 0
    for version, strategies in (("1.2.6", "shorten_tools_epoch"), ("2.1", "shorten_tools_epoch"), ("2.1", None)):
        for overrides in ({}, SMALL):
            ins = open_inspection(
                path, Setup.of(config_files=[], env={}, strategies=strategies, version=version, overrides=overrides)
            )
            for n in markers:
                for o in trace(ins, chats.marker(n)).occurrences:
                    if o.visible or o.message is None:
                        continue
                    t0 = time.perf_counter()
                    got = find_fixes(ins, o, Replanner(ins))
                    t1 = time.perf_counter()
                    saved = fixes_module._window_outcome, fixes_module.EPOCH_SPAN
                    fixes_module._window_outcome, fixes_module.EPOCH_SPAN = (lambda *a: None), 10**9
                    try:
                        want = find_fixes(ins, o, Replanner(ins))
                    finally:
                        fixes_module._window_outcome, fixes_module.EPOCH_SPAN = saved
                    t2 = time.perf_counter()
                    same = [f.as_dict() for f in got.fixes] == [f.as_dict() for f in want.fixes] and (
                        got.notes,
                        got.blocked,
                    ) == (want.notes, want.blocked)
                    mismatches += not same
                    found = ", ".join(f"{f.key}{'>=' if f.direction == 'raise' else '<='}{f.value}" for f in got.fixes)
                    print(
                        f"{version} {strategies or 'default'} {'small' if overrides else 'defaults'} "
                        f"{chats.marker(n)}: {'same' if same else 'DIFFERENT'} ({len(got.fixes)} fixes; "
                        f"closed form {t1 - t0:.2f} s, brute force {t2 - t1:.1f} s) {found}",
                        flush=True,
                    )
    print(f"mismatches: {mismatches}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())

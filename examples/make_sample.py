"""Write examples/quotas_sample.csv (a few thousand desired quotas) and examples/quotas_invalid_sample.csv
(a few rows that are rejected, and why), the same bytes on every run.

    python examples/make_sample.py            # rewrites both files
    python examples/make_sample.py --check    # exits 1 if a shipped file differs from what this writes

Why generated and not hand-written: a sample of thousands of rows must stay consistent (no accidental
duplicates, whole byte rates) and reviewable; a short script is both.  No randomness: every value is
arithmetic on the row number, so the file cannot drift between Python versions.

What is in it (long format, ``user,client_id,ip,quota_key,value``):

* 1,200 users with a produce and a consume byte rate, every third also a request_percentage;
* 300 (user, client-id) pairs, 100 client-ids alone, 60 IPs with a connection_creation_rate;
* the default user, the default client-id of one user, and the default IP (``<default>``);
and in the second file, a handful of invalid rows (a negative rate, a fraction of a byte, an unknown key,
text instead of a number, a row with no entity) beside two valid ones, to show what rejected rows look
like: they are reported and skipped, the valid rows are applied, and the job exits 1, as ``kadmin quotas
provision`` does.  (They are not in the main sample: the README's first command must succeed.)
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

HEADER = ("user", "client_id", "ip", "quota_key", "value")
OUT = Path(__file__).resolve().parent / "quotas_sample.csv"
INVALID_OUT = Path(__file__).resolve().parent / "quotas_invalid_sample.csv"
MIB = 1024 * 1024

Row = tuple[str, str, str, str, str]


def rows() -> list[Row]:
    out: list[Row] = []
    for i in range(1200):
        user = f"tenant-{i:04d}"
        out.append((user, "", "", "producer_byte_rate", str((1 + i % 50) * MIB)))
        out.append((user, "", "", "consumer_byte_rate", str((2 + i % 80) * MIB)))
        if i % 3 == 0:
            out.append((user, "", "", "request_percentage", f"{25 + (i % 7) * 12.5}"))
    for i in range(300):
        user, client = f"tenant-{i * 4:04d}", f"etl-{i % 25:02d}"
        out.append((user, client, "", "producer_byte_rate", str((1 + i % 10) * 512 * 1024)))
        if i % 2 == 0:
            out.append((user, client, "", "controller_mutation_rate", f"{1 + i % 9}.5"))
    for i in range(100):
        out.append(("", f"svc-{i:03d}", "", "consumer_byte_rate", str((4 + i % 16) * MIB)))
    for i in range(60):
        out.append(("", "", f"10.20.{i // 16}.{i % 16 + 1}", "connection_creation_rate", str(10 + i % 40)))
    out += [
        ("<default>", "", "", "producer_byte_rate", str(MIB)),
        ("<default>", "", "", "consumer_byte_rate", str(2 * MIB)),
        ("tenant-0001", "<default>", "", "request_percentage", "50"),
        ("", "", "<default>", "connection_creation_rate", "5"),
    ]
    return out


def invalid_rows() -> list[Row]:
    return [
        ("tenant-9000", "", "", "producer_byte_rate", str(MIB)),  # valid: applied
        ("tenant-9000", "etl-00", "", "consumer_byte_rate", str(2 * MIB)),  # valid: applied
        # invalid on purpose: each comes back with status "rejected" and the reason in "error"
        ("tenant-9001", "", "", "producer_byte_rate", "-1"),
        ("tenant-9002", "", "", "consumer_byte_rate", "1048576.5"),
        ("tenant-9003", "", "", "produce_byte_rate", str(MIB)),
        ("tenant-9004", "", "", "request_percentage", "fifty"),
        ("", "", "", "producer_byte_rate", str(MIB)),
    ]


def render(table: list[Row]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(HEADER)
    w.writerows(table)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing")
    args = ap.parse_args(argv)
    status = 0
    for path, table in ((OUT, rows()), (INVALID_OUT, invalid_rows())):
        text = render(table)
        if args.check:
            same = path.exists() and path.read_text() == text
            print(f"{path.name}: {'up to date' if same else 'differs from make_sample.py output'}")
            status |= 0 if same else 1
        else:
            path.write_text(text)
            print(f"wrote {path} ({text.count(chr(10)) - 1} rows)")
    return status


if __name__ == "__main__":
    sys.exit(main())

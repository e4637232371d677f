"""Write the JSON samples: a long agent debugging session where the defaults truncate and drop.

The fact the agent later forgets (``reconnect_backoff_ms: 7350`` in the early config
dump) sits in the middle of a long tool output, so truncation and then dropping hide it.
Deterministic: run it again and the files come out byte for byte the same.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
FACT = "reconnect_backoff_ms: 7350"


def log_lines(rng: random.Random, count: int, service: str) -> str:
    levels = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"]
    words = ["connection", "pool", "retry", "checkout", "order", "ledger", "timeout", "handshake", "cache", "queue"]
    lines = []
    for i in range(count):
        level = rng.choice(levels)
        text = " ".join(rng.choice(words) for _ in range(rng.randint(4, 10)))
        lines.append(
            f"2026-11-{rng.randint(1, 28):02d}T10:{i % 60:02d}:{rng.randint(0, 59):02d}Z {level} [{service}] {text}"
        )
    return "\n".join(lines)


def config_dump(rng: random.Random) -> str:
    lines = ["# services/checkout/config/production.yaml", "service: checkout", "replicas: 6"]
    for i in range(80):
        lines.append(f"feature_flag_{i:02d}: {rng.choice(['true', 'false'])}")
    lines.append(FACT)
    for i in range(80):
        lines.append(f"limit_{i:02d}: {rng.randint(10, 9999)}")
    lines.append("ledger_url: https://ledger.internal:8443")
    return "\n".join(lines)


def build() -> list[dict]:
    rng = random.Random(2026)
    messages: list[dict] = [
        {"role": "system", "content": "You are a debugging agent for the checkout service. Use the tools; be precise."},
        {"role": "user", "content": "Checkout requests fail intermittently after the ledger deploy. Find out why."},
    ]
    n = 0

    def call(name: str, arguments: dict, output: str) -> None:
        nonlocal n
        n += 1
        ident = f"call_{n:03d}"
        messages.append(
            {
                "role": "function_call",
                "content": json.dumps(
                    {"name": name, "arguments": arguments, "id": ident}, ensure_ascii=False, separators=(",", ":")
                ),
            }
        )
        messages.append(
            {
                "role": "function_call_output",
                "content": json.dumps(
                    {"name": name, "content": output, "id": ident}, ensure_ascii=False, separators=(",", ":")
                ),
            }
        )

    call("read_file", {"path": "services/checkout/config/production.yaml"}, config_dump(rng))
    messages.append({"role": "assistant", "content": "The config sets a reconnect backoff; I'll check the logs next."})
    for round_ in range(52):
        service = rng.choice(["checkout", "ledger", "gateway"])
        kind = round_ % 4
        if kind == 0:
            call("grep_logs", {"service": service, "pattern": "timeout|reconnect"}, log_lines(rng, 90, service))
        elif kind == 1:
            call(
                "run_tests",
                {"suite": f"tests/{service}", "args": ["-x", "--maxfail=1"]},
                log_lines(rng, 70, service) + "\nFAILED tests/test_retry.py::test_backoff - AssertionError",
            )
        elif kind == 2:
            call(
                "http_get",
                {"url": f"https://{service}.internal/health"},
                json.dumps({"status": rng.choice(["ok", "degraded"]), "latency_ms": rng.randint(3, 900)}),
            )
        else:
            call(
                "read_file",
                {"path": f"services/{service}/src/client_{round_}.py"},
                "\n".join(f"    line_{i} = retry(connect, attempt={i})" for i in range(rng.randint(20, 60))),
            )
        if round_ % 9 == 8:
            messages.append({"role": "assistant", "content": f"Round {round_ + 1}: still narrowing it down."})
    messages.append({"role": "user", "content": "What reconnect backoff does production use? Quote the config."})
    messages.append(
        {
            "role": "assistant",
            "content": "I no longer have the production config in view; I would need to read it again.",
        }
    )
    return messages


def main() -> None:
    messages = build()
    text = json.dumps(messages, ensure_ascii=False, indent=1) + "\n"
    (HERE / "debug_session.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

"""Deterministic random chats for differential, golden and property tests."""

from __future__ import annotations

import json
import random

ALPHABETS = [
    "abcdefghij klmnopqrstuvwxyz\n",
    "été ça naïve Ωμέγα 中文字符 ",
    "😀👍🏽🇫🇷 e\u0301 a\u0308 ",
    '\t"\\/<>{}[]\u2028\u0001\u001f\u007f',
    "0123456789.,;:-_=+ ",
]
TOOLS = ["ls", "read_file", "grep", "run_tests", "http_get", "sql"]


def text(rng: random.Random, length: int) -> str:
    pools = rng.sample(ALPHABETS, rng.randint(1, len(ALPHABETS)))
    pool = "".join(pools)
    return "".join(rng.choice(pool) for _ in range(length))


def size(rng: random.Random, scale: int) -> int:
    # lengths clustered around the 150/200/400 edges and some long ones
    pick = rng.random()
    if pick < 0.35:
        return rng.choice([0, 1, 148, 149, 150, 151, 198, 199, 200, 201, 202, 398, 399, 400, 401])
    if pick < 0.7:
        return rng.randint(0, 600)
    return rng.randint(600, max(600, scale))


def value(rng: random.Random, scale: int, depth: int = 0):
    pick = rng.random()
    if pick < 0.45 or depth > 2:
        return text(rng, size(rng, scale))
    if pick < 0.55:
        return rng.randint(-(10**6), 10**6)
    if pick < 0.65:
        return rng.choice([0.5, 3.0, 1e20, 1.5e-7, 1e15, 123456.789, -0.0, 2.5e16, 100.0])
    if pick < 0.7:
        return rng.choice([True, False, None])
    if pick < 0.85:
        return [value(rng, scale // 4, depth + 1) for _ in range(rng.randint(0, 3))]
    return {f"k{i}": value(rng, scale // 4, depth + 1) for i in range(rng.randint(0, 3))}


def chat(seed: int, messages: int = 60, scale: int = 3000, extras: bool = True, traps: bool = False) -> list[dict]:
    rng = random.Random(seed)
    out: list[dict] = [{"role": "system", "content": "You are a careful agent."}]
    n = 0
    while len(out) < messages:
        r = rng.random()
        if r < 0.12:
            out.append({"role": "user", "content": text(rng, rng.randint(1, 300))})
        elif r < 0.22:
            out.append({"role": "assistant", "content": text(rng, rng.randint(0, 400))})
        else:
            n += 1
            call_id = f"call_{seed}_{n}"
            name = rng.choice(TOOLS)
            args = {f"a{i}": value(rng, scale) for i in range(rng.randint(0, 3))}
            out.append(
                {
                    "role": "function_call",
                    "content": json.dumps(
                        {"name": name, "arguments": args, "id": call_id}, ensure_ascii=rng.random() < 0.3
                    ),
                }
            )
            body = {"name": name, "content": text(rng, size(rng, scale)), "id": call_id}
            if rng.random() < 0.2:
                body["stack"] = [text(rng, 20) for _ in range(2)]
            if rng.random() < 0.15:
                body["elapsed"] = rng.choice([0.25, 1e-05, 3.0, 12345678901234567.0])
            if rng.random() < 0.1:
                body = {"id": call_id, "content": body["content"], "name": name}  # other key order
            out.append({"role": "function_call_output", "content": json.dumps(body, ensure_ascii=rng.random() < 0.3)})
        if extras and rng.random() < 0.03:
            out.append({"role": rng.choice(["function_call", "function_call_output"]), "content": None})
        if extras and rng.random() < 0.05:
            out.append({"role": "tool", "content": "ls", "weird key": [1, 2.0]})
    if traps:
        for _ in range(rng.randint(1, 3)):
            j = rng.randrange(len(out))
            trap = rng.choice(
                [
                    "bad_json",
                    "null_args",
                    "string_args",
                    "null_content",
                    "no_role",
                    "array_content",
                    "scalar_json",
                    "big_array",
                    "int_content",
                ]
            )
            if trap == "bad_json":
                out[j] = {"role": rng.choice(["function_call", "function_call_output"]), "content": "{not json"}
            elif trap == "null_args":
                out[j] = {"role": "function_call", "content": json.dumps({"name": "x", "arguments": None, "id": "n"})}
            elif trap == "string_args":
                out[j] = {
                    "role": "function_call",
                    "content": json.dumps({"name": "x", "arguments": '{"q": 1}', "id": "s"}),
                }
            elif trap == "null_content":
                out[j] = {
                    "role": "function_call_output",
                    "content": json.dumps({"name": "x", "content": None, "id": "z"}),
                }
            elif trap == "no_role":
                out[j] = {"content": "who am I"}
            elif trap == "array_content":
                out[j] = {
                    "role": "function_call_output",
                    "content": json.dumps({"name": "x", "content": [1, 2], "id": "a"}),
                }
            elif trap == "big_array":
                out[j] = {
                    "role": "function_call_output",
                    "content": json.dumps({"name": "x", "content": list(range(250)), "id": "b"}),
                }
            elif trap == "scalar_json":
                out[j] = {"role": "function_call_output", "content": "42"}
            elif trap == "int_content":
                out[j] = {"role": "function_call", "content": 7}
    for i, message in enumerate(out):
        if extras and rng.random() < 0.5:
            message["_i"] = i
    return out


def thresholds(rng: random.Random) -> dict[str, str]:
    env = {}
    if rng.random() < 0.7:
        env["MAX_TOOL_CHARS"] = str(rng.choice([0, 1, 500, 2000, 5000, 20000, 100000]))
    if rng.random() < 0.6:
        env["FULL_TOOL_OUTPUTS"] = str(rng.randint(0, 15))
    if rng.random() < 0.4:
        env["FULL_TOOL_CALLS"] = str(rng.randint(0, 15))
    if rng.random() < 0.5:
        env["MAX_TOOL_CALLS"] = str(rng.randint(0, 30))
    if rng.random() < 0.4:
        env["MAX_TOOL_OUTPUTS"] = str(rng.randint(0, 30))
    if rng.random() < 0.05:
        env["MAX_TOOL_CHARS"] = rng.choice(["100k", " 12", "1_000", "", "-5", "abc"])
    return env

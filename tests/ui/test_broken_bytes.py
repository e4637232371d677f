"""A chat holding invalid UTF-8 and lone escaped surrogates opens, renders and steps without a crash."""

from __future__ import annotations

import json
import re

from .conftest import row_line, screen_text, settle

LONE = re.compile(r"[\ud800-\udfff]")


def broken_chat(tmp_path):
    call = json.dumps({"name": "ls", "arguments": {"q": "XX"}, "id": "c1"})
    out = json.dumps({"name": "ls", "content": "ok YY bad", "id": "c1"})
    data = json.dumps(
        [
            {"role": "user", "content": "hi ZZ there, fine"},
            {"role": "function_call", "content": call},
            {"role": "function_call_output", "content": out},
            {"role": "user", "content": "next"},
        ]
    ).encode()
    data = data.replace(b"XX", b"\\\\udc00").replace(b"YY", b"\xff\xfe").replace(b"ZZ", b"\\ud800")
    path = tmp_path / "broken.json"
    path.write_bytes(data)
    return path


async def test_broken_bytes_chat_opens_and_steps(make_app, tmp_path):
    app = make_app(broken_chat(tmp_path))
    async with app.run_test(size=(139, 40)) as pilot:
        await settle(app, pilot)
        assert app.is_running
        assert "hi ?there, fine" in row_line(app, 0)  # \ud800 then 6+ bytes: `?`, the next byte (a space) dropped
        for row in range(4):
            app.go_to_row(row)
            await settle(app, pilot)
            assert app.is_running
            assert not LONE.search(screen_text(app))  # shown as U+FFFD: a terminal cannot encode them
        app.go_to_row(1)
        await settle(app, pilot)
        assert '"q": "\ufffd\ufffd\ufffd"' in screen_text(app)  # \udc00: 3 invalid bytes

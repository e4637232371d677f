"""Paging the list as in less: Space a page down, ctrl+d and ctrl+u half a page."""

from __future__ import annotations

from inspector.ui.widgets.dual_view import DualColumnView

from .conftest import settle


async def test_space_pages_and_ctrl_d_ctrl_u_move_half_a_page(make_app):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.query_one(DualColumnView)
        view.focus()
        await settle(app, pilot)
        page = view.scrollable_content_region.height
        assert view.cursor == 0 and page > 4
        await pilot.press("space")
        await settle(app, pilot)
        assert view.cursor == page
        await pilot.press("ctrl+u")
        await settle(app, pilot)
        assert view.cursor == page - page // 2
        await pilot.press("ctrl+d")
        await settle(app, pilot)
        assert view.cursor == page - page // 2 + page // 2
        assert view.scroll_offset.y <= view.cursor < view.scroll_offset.y + page  # the cursor stays in sight

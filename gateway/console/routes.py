"""The console's routes, under `/console`."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from gateway.console import actions, assets, pages


def console_routes() -> list[BaseRoute]:
    queue = "/console/queues/{name}"
    return [
        Route("/console", pages.overview, methods=["GET"]),
        Route("/console/data.json", pages.overview_data, methods=["GET"]),
        Route("/console/login", actions.login_form, methods=["GET"]),
        Route("/console/login", actions.login, methods=["POST"]),
        Route("/console/logout", actions.logout, methods=["POST"]),
        Route(queue, pages.queue_page, methods=["GET"]),
        Route(f"{queue}/data.json", pages.queue_data, methods=["GET"]),
        Route(f"{queue}/peek", pages.peek_page, methods=["GET"]),
        Route(f"{queue}/purge", actions.purge_confirm, methods=["GET"]),
        Route(f"{queue}/purge", actions.purge, methods=["POST"]),
        Route(f"{queue}/redrive", actions.redrive_confirm, methods=["GET"]),
        Route(f"{queue}/redrive", actions.redrive, methods=["POST"]),
        Route("/console/topics/{name}", pages.topic_page, methods=["GET"]),
        Route("/console/static/console.css", assets.console_css, methods=["GET"]),
        Route("/console/static/console.js", assets.console_js, methods=["GET"]),
    ]

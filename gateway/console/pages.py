"""The console's pages: queues and topics of the signed-in account, a queue, its
messages (peeked), a topic and its subscriptions; and their JSON twins, which the
script polls.

Read-only: the changes (purge, redrive, sign in and out) are in actions.py.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gateway.console.guard import sessions, signed_in, to_login
from gateway.console.layout import age, chart, h, page, table
from gateway.core.broker import Broker
from gateway.core.errors import CoreError, ErrorKind
from gateway.core.queue_census import QueueGauges, gather_bounded
from gateway.core.queues import Queue

MAX_QUEUES = 500  # on the overview; the rest are named by count
MAX_PEEK = 10
BODY_CHARS = 2_000


def _broker(request: Request) -> Broker:
    broker: Broker = request.app.state.broker
    return broker


async def _gauges(broker: Broker, account_id: str, names: Sequence[str]) -> list[QueueGauges]:
    async def one(name: str) -> QueueGauges | None:
        try:
            return await broker.queue_gauges(await broker.get_queue(account_id, name))
        except CoreError as exc:
            if exc.kind is not ErrorKind.NOT_FOUND:
                raise  # deleted since it was listed: left out; anything else is a failure
            return None

    # As many at a time as the census reads (gateway/core/queue_census.py).
    found = await gather_bounded(names, one)
    return [gauges for gauges in found if gauges is not None]


def _as_json(now_ms: int, gauges: Sequence[QueueGauges]) -> JSONResponse:
    return JSONResponse(
        {
            "time_ms": now_ms,
            "queues": {
                g.name: {
                    "visible": g.visible,
                    "in_flight": g.in_flight,
                    "delayed": g.delayed,
                    "oldest_age_s": None if g.oldest_age_ms is None else g.oldest_age_ms / 1000,
                    "appended": g.appended,
                }
                for g in gauges
            },
        },
        headers={"cache-control": "no-store"},
    )


def _queue_row(gauges: QueueGauges) -> str:
    oldest = None if gauges.oldest_age_ms is None else gauges.oldest_age_ms / 1000
    return (
        f'<tr data-queue="{h(gauges.name)}">'
        f'<td><a href="/console/queues/{h(gauges.name)}">{h(gauges.name)}</a></td>'
        f'<td class="num" data-field="visible">{gauges.visible}</td>'
        f'<td class="num" data-field="in_flight">{gauges.in_flight}</td>'
        f'<td class="num" data-field="delayed">{gauges.delayed}</td>'
        f'<td class="num" data-field="oldest_age_s">{h(age(oldest))}</td></tr>'
    )


_QUEUE_HEADINGS = ("Queue", "Visible", "In flight", "Delayed", "Oldest message")
_CHARTS = (
    '<div class="charts">'
    + chart("chart-waiting", "Messages waiting (visible + in flight)")
    + chart("chart-throughput", "Messages sent per second")
    + "</div>"
)


async def overview(request: Request) -> Response:
    session = await signed_in(request)
    if session is None:
        return to_login()
    broker, account_id = _broker(request), session.principal.account_id
    names = await broker.list_queues(account_id)
    gauges = await _gauges(broker, account_id, names[:MAX_QUEUES])
    more = (
        f'<p class="notice">{len(names) - MAX_QUEUES} more queues are not shown.</p>'
        if len(names) > MAX_QUEUES
        else ""
    )
    topic_arns = (await broker.topics.list_topics(account_id, None)).items
    topic_rows = [
        f'<tr><td><a href="/console/topics/{h(name)}">{h(name)}</a></td></tr>'
        for name in (arn.rsplit(":", 1)[1] for arn in topic_arns)
    ]
    body = (
        '<h1>Queues</h1><div data-source="/console/data.json"></div>'
        + _CHARTS
        + table(_QUEUE_HEADINGS, [_queue_row(g) for g in gauges], attributes='id="queues"')
        + more
        + "<h1>Topics</h1>"
        + table(("Topic",), topic_rows, attributes='id="topics"')
    )
    csrf = sessions(request).csrf_token(session)
    return page("Queues and topics", body, account_id=account_id, csrf=csrf)


async def overview_data(request: Request) -> Response:
    session = await signed_in(request)
    if session is None:
        return JSONResponse({"error": "sign in at /console/login"}, status_code=401)
    broker, account_id = _broker(request), session.principal.account_id
    names = await broker.list_queues(account_id)
    return _as_json(broker.clock.now_ms(), await _gauges(broker, account_id, names[:MAX_QUEUES]))


def _not_found(title: str, exc: CoreError) -> Response:
    return page(title, f'<p class="error">{h(exc.message)}</p>', status_code=404)


async def _queue(request: Request, account_id: str) -> Queue | Response:
    try:
        return await _broker(request).get_queue(account_id, request.path_params["name"])
    except CoreError as exc:
        if exc.kind is ErrorKind.NOT_FOUND:
            return _not_found("No such queue", exc)
        raise


async def queue_page(request: Request) -> Response:
    session = await signed_in(request)
    if session is None:
        return to_login()
    account_id = session.principal.account_id
    queue = await _queue(request, account_id)
    if isinstance(queue, Response):
        return queue
    broker = _broker(request)
    gauges = await broker.queue_gauges(queue)
    sources = await broker.dead_letter_sources(queue)
    name = h(queue.name)
    done = request.query_params.get("done")
    notices = {
        "purged": "The queue was purged: every message sent before the purge is gone.",
        "redrive": "A redrive started: the messages are moved back to their source queues.",
    }
    body = f'<h1>Queue {name}</h1><div data-source="/console/queues/{name}/data.json"></div>'
    if done in notices:
        body += f'<p class="notice">{h(notices[done])}</p>'
    body += _CHARTS + table(_QUEUE_HEADINGS, [_queue_row(gauges)], attributes='id="stats"')
    body += (
        f'<p><a href="/console/queues/{name}/peek">Peek at messages</a> · '
        f'<a href="/console/queues/{name}/purge">Purge…</a>'
    )
    if sources:
        body += f' · <a href="/console/queues/{name}/redrive">Redrive to source queues…</a>'
    body += "</p><h2>Dead-letter queue</h2>"
    redrive = queue.settings.redrive
    if redrive is None:
        body += "<p>None (no RedrivePolicy).</p>"
    else:
        target = h(redrive.dead_letter_queue)
        body += (
            f'<p><a href="/console/queues/{target}">{target}</a>, after '
            f"{redrive.max_receive_count} receives.</p>"
        )
    body += "<h2>Dead-letter queue of</h2>"
    body += table(
        ("Source queue",),
        [f'<tr><td><a href="/console/queues/{h(s)}">{h(s)}</a></td></tr>' for s in sources],
        attributes='id="sources"',
    )
    attributes = {**queue.all_attributes(), "QueueArn": queue.arn}
    body += "<h2>Attributes</h2>" + table(
        ("Attribute", "Value"),
        [
            f"<tr><td>{h(key)}</td><td><pre>{h(value)}</pre></td></tr>"
            for key, value in sorted(attributes.items())
        ],
        attributes='id="attributes"',
    )
    csrf = sessions(request).csrf_token(session)
    return page(f"Queue {queue.name}", body, account_id=account_id, csrf=csrf)


async def queue_data(request: Request) -> Response:
    session = await signed_in(request)
    if session is None:
        return JSONResponse({"error": "sign in at /console/login"}, status_code=401)
    queue = await _queue(request, session.principal.account_id)
    if isinstance(queue, Response):
        return JSONResponse({"error": "no such queue"}, status_code=404)
    broker = _broker(request)
    return _as_json(broker.clock.now_ms(), [await broker.queue_gauges(queue)])


async def peek_page(request: Request) -> Response:
    session = await signed_in(request)
    if session is None:
        return to_login()
    account_id = session.principal.account_id
    queue = await _queue(request, account_id)
    if isinstance(queue, Response):
        return queue
    peeked = await _broker(request).peek(queue, MAX_PEEK)
    rows = []
    for message in peeked:
        record = message.record
        body = record.body.decode(errors="replace")
        if len(body) > BODY_CHARS:
            body = body[:BODY_CHARS] + f"… ({len(record.body)} bytes)"
        sent = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(record.timestamp_ms / 1000))
        attributes = ", ".join(sorted(record.attributes)) or "—"
        rows.append(
            f'<tr data-message-id="{h(record.message_id)}"><td>{h(record.message_id)}</td>'
            f"<td>{h(sent)} UTC</td>"
            f"<td>{'received or delayed' if message.delivered else 'not received yet'}</td>"
            f"<td>{h(attributes)}</td><td><pre>{h(body)}</pre></td></tr>"
        )
    name = h(queue.name)
    body = (
        f'<h1>Messages of <a href="/console/queues/{name}">{name}</a></h1>'
        f"<p>The first {MAX_PEEK} not yet deleted, oldest first, read without receiving "
        "them: nothing about them changes.</p>"
        + table(
            ("Message id", "Sent", "State", "Attributes", "Body"), rows, attributes='id="peeked"'
        )
    )
    csrf = sessions(request).csrf_token(session)
    return page(f"Messages of {queue.name}", body, account_id=account_id, csrf=csrf)


async def topic_page(request: Request) -> Response:
    session = await signed_in(request)
    if session is None:
        return to_login()
    account_id, broker = session.principal.account_id, _broker(request)
    try:
        topic = await broker.topics.own_topic(account_id, request.path_params["name"])
    except CoreError as exc:
        if exc.kind is ErrorKind.NOT_FOUND:
            return _not_found("No such topic", exc)
        raise
    subscriptions, _ = await broker.topics.list_subscriptions(account_id, topic, None)
    rows = []
    for subscription in subscriptions:
        attributes = subscription.attributes
        if subscription.pending:
            state = "pending confirmation"
        elif subscription.protocol in ("sqs", "http", "https"):
            behind = await broker.subscription_behind(subscription)
            state = "delivered up to the end" if behind == 0 else f"{behind} messages behind"
        else:
            state = "pulled by its consumers"
        rows.append(
            f"<tr><td>{h(subscription.protocol)}</td><td>{h(subscription.endpoint)}</td>"
            f"<td><pre>{h(attributes.get('FilterPolicy', '—'))}</pre></td>"
            f"<td>{h(attributes.get('RawMessageDelivery', 'false'))}</td><td>{h(state)}</td></tr>"
        )
    body = f"<h1>Topic {h(topic.name)}</h1><p>{h(topic.arn)}</p><h2>Subscriptions</h2>" + table(
        ("Protocol", "Endpoint", "Filter policy", "Raw delivery", "Delivery"),
        rows,
        attributes='id="subscriptions"',
    )
    csrf = sessions(request).csrf_token(session)
    return page(f"Topic {topic.name}", body, account_id=account_id, csrf=csrf)

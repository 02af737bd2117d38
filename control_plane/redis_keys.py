"""The Redis key schema, in one place (documented in docs/control-plane.md).

The rule that lets the same code run on one Redis and on a Redis Cluster: every Lua
script, and every MULTI transaction, touches keys of one hash slot only, all of them
passed in KEYS (a script never builds a key name: on a cluster a key it was not given
may live on another node). The slot is chosen by a hash tag, after what the keys are
about:

- `{s:<subscription id>}`: one subscription's delivery state (a queue's implicit
  subscription has the stream's id), and a stream's partition leases. Claims, deletes
  and delays, the hot path, touch only these, so subscriptions spread over the nodes.
- `{a:<account id>}`: one account's catalogues, which scripts change together: queues
  with their tags and dead-letter sources (a dead-letter queue is of the same account),
  topics with their subscriptions (a subscription lives in its topic owner's slot,
  whatever its endpoint), and move tasks.
- `{auth}` (access_keys.py, bearer_tokens.py), `{nodes}` (membership) and `{push}`:
  small deployment-wide sets, each in one slot.
- No tag: single keys (the receipt and signing keys, the writer epoch, the account
  index) that no script or transaction shares with another key.

An operation that must change keys of two slots (creating a queue and adding its account
to ACCOUNTS; deleting a queue and then its subscription's keys) is two steps, ordered so
that a crash between them leaves unreachable keys, never a half-visible object.
tests/control_plane/test_every_script_on_a_cluster.py runs every script on a cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

PREFIX = "tq"
RECEIPT_KEY = f"{PREFIX}:receipt-key"
# The deployment's SNS signing key and certificate, made once (control_plane/signing_keys.py).
SNS_SIGNING_KEY = f"{PREFIX}:sns-signing-key"
# A counter: each storage node start takes the next value as its archive writer epoch.
WRITER_EPOCH = f"{PREFIX}:writer-epoch"


# Set of the accounts that own queues or topics (control_plane/accounts.py), and the marker
# saying that it also holds those of catalogues made before the index existed.
ACCOUNTS = f"{PREFIX}:accounts"
ACCOUNTS_INDEXED = f"{PREFIX}:accounts-indexed"


def account_of_catalogue(key: str) -> str | None:
    """The account of a queue or topic catalogue's key; None for any other key."""
    head, _, rest = key.partition(":{a:")
    account_id, _, tail = rest.partition("}:")
    if head != PREFIX or not account_id or tail not in ("queues", "topics"):
        return None
    return account_id


def queue_catalogue(account_id: str) -> str:
    """Sorted set of the account's queue names (all score 0, so ZRANGEBYLEX pages by prefix)."""
    return f"{PREFIX}:{{a:{account_id}}}:queues"


def queue_metadata(account_id: str, queue_name: str) -> str:
    """Hash: stream_id, created_ms, partitions, attributes (JSON)."""
    return f"{PREFIX}:{{a:{account_id}}}:q:{queue_name}"


def queue_tags(account_id: str, queue_name: str) -> str:
    """Hash: tag key -> tag value."""
    return f"{PREFIX}:{{a:{account_id}}}:tags:{queue_name}"


def deleted_queues(account_id: str) -> str:
    """Hash: queue name -> when it was deleted (ms); a name is not re-created within 60 s."""
    return f"{PREFIX}:{{a:{account_id}}}:deleted"


def dead_letter_sources(account_id: str, queue_name: str) -> str:
    """Set of the queues whose RedrivePolicy names this queue as their dead-letter queue."""
    return f"{PREFIX}:{{a:{account_id}}}:dlq-sources:{queue_name}"


def move_tasks(account_id: str) -> str:
    """Hash: message move task id -> the task as JSON."""
    return f"{PREFIX}:{{a:{account_id}}}:move-tasks"


def move_tasks_of(account_id: str, source_queue: str) -> str:
    """Sorted set of a source queue's move task ids by start time (the last ten)."""
    return f"{PREFIX}:{{a:{account_id}}}:move-tasks:{source_queue}"


def move_task_cancels(account_id: str) -> str:
    """Set of the ids of running move tasks asked to stop; kept apart from the task
    records so that a runner saving its progress cannot undo a cancel."""
    return f"{PREFIX}:{{a:{account_id}}}:move-cancels"


def running_move_tasks(account_id: str) -> str:
    """Hash: source queue -> "<id of its running move task>:<heartbeat ms>"."""
    return f"{PREFIX}:{{a:{account_id}}}:move-running"


def topic_catalogue(account_id: str) -> str:
    """Sorted set of the account's topic names (all score 0, paged with ZRANGEBYLEX)."""
    return f"{PREFIX}:{{a:{account_id}}}:topics"


def topic_metadata(account_id: str, topic_name: str) -> str:
    """Hash: stream_id, created_ms, attributes (JSON)."""
    return f"{PREFIX}:{{a:{account_id}}}:t:{topic_name}"


def topic_tags(account_id: str, topic_name: str) -> str:
    """Hash: tag key -> tag value."""
    return f"{PREFIX}:{{a:{account_id}}}:ttags:{topic_name}"


def topic_subscriptions(account_id: str, topic_name: str) -> str:
    """Sorted set of the topic's subscription ids (all score 0)."""
    return f"{PREFIX}:{{a:{account_id}}}:tsubs:{topic_name}"


def topic_endpoints(account_id: str, topic_name: str) -> str:
    """Hash "<protocol> <endpoint>" -> subscription id: one subscription per endpoint."""
    return f"{PREFIX}:{{a:{account_id}}}:tends:{topic_name}"


def account_subscriptions(account_id: str) -> str:
    """Sorted set of the ids of every subscription to the account's topics (score 0)."""
    return f"{PREFIX}:{{a:{account_id}}}:subs"


def subscription(account_id: str, subscription_id: str) -> str:
    """Hash: topic, topic_stream_id, protocol, endpoint, owner, created_ms, attributes
    (JSON), pending ("1" until confirmed) and token (the confirmation token, if pending)."""
    return f"{PREFIX}:{{a:{account_id}}}:sub:{subscription_id}"


def confirmation_tokens(account_id: str) -> str:
    """Hash: confirmation token -> subscription id, for pending subscriptions."""
    return f"{PREFIX}:{{a:{account_id}}}:sub-tokens"


# Every subscription that the gateways' dispatchers deliver (sqs, http, https), as
# "<account id>:<subscription id>". Written before the subscription and removed after it,
# so a crash between the two leaves an entry the dispatcher finds has no subscription.
PUSH_SUBSCRIPTIONS = f"{PREFIX}:{{push}}:subscriptions"


@dataclass(frozen=True, slots=True)
class SubscriptionKeys:
    """The keys of one subscription (a queue's implicit one has the stream's id)."""

    subscription_id: str

    @property
    def _tag(self) -> str:
        return f"{PREFIX}:{{s:{self.subscription_id}}}"

    @property
    def timers(self) -> str:
        """Sorted set, member "<partition>:<offset>", score = due time (ms)."""
        return f"{self._tag}:timers"

    @property
    def deliveries(self) -> str:
        """Hash "<partition>:<offset>" -> "<receive count>:<delivery seq>:<first receive ms>"."""
        return f"{self._tag}:deliveries"

    @property
    def cursors(self) -> str:
        """Hash partition -> next offset never yet delivered."""
        return f"{self._tag}:cursors"

    @property
    def delivery_seq(self) -> str:
        """Counter; each delivery takes the next value, so each receipt names one delivery."""
        return f"{self._tag}:seq"

    @property
    def delayed(self) -> str:
        """Sorted set of the timers' members that are delays (never yet delivered), by due
        time; only for counting them apart from in-flight messages."""
        return f"{self._tag}:delayed"

    @property
    def stats(self) -> str:
        """Hash: `expired` and `dead_lettered` (counts of messages removed that way),
        `purged_ms` (time of the last purge)."""
        return f"{self._tag}:stats"

    @property
    def ahead(self) -> str:
        """Set of the members "<partition>:<offset>" delayed at send while at or past
        their cursor: the timers deliver them, so the cursor passes over them (once)."""
        return f"{self._tag}:ahead"

    @property
    def fifo(self) -> str:
        """FIFO queues: sorted set of every undeleted message that joined its group, member
        "<group>\\0<offset, 20 digits>" followed by "\\0<partition>" unless the partition is
        0, all score 0, so ZRANGEBYLEX gives a group (all in one partition) in order."""
        return f"{self._tag}:fifo"

    @property
    def groups(self) -> str:
        """FIFO queues: hash "<partition>:<offset>" -> the message's group id."""
        return f"{self._tag}:groups"

    @property
    def group_locks(self) -> str:
        """FIFO queues: hash group id -> how many of its messages are in flight."""
        return f"{self._tag}:glocks"

    @property
    def ready_groups(self) -> str:
        """FIFO queues: sorted set of unlocked groups with messages, by their first offset."""
        return f"{self._tag}:ready"

    @property
    def dedup(self) -> str:
        """FIFO queues: hash deduplication key -> "<message id>:<offset>[:<partition>]" of
        the first send (no partition: 0)."""
        return f"{self._tag}:dedup"

    @property
    def dedup_expiry(self) -> str:
        """FIFO queues: sorted set of deduplication keys by the time (ms) they lapse."""
        return f"{self._tag}:dedup-exp"

    @property
    def dispatcher(self) -> str:
        """Pushed subscriptions: the id of the gateway that delivers them now, with a TTL
        (control_plane/dispatch_cursors.py)."""
        return f"{self._tag}:dispatcher"

    def fifo_keys(self) -> list[str]:
        """The FIFO structures, in the order the delivery scripts take them."""
        return [self.fifo, self.groups, self.group_locks, self.ready_groups]

    def unacked(self, partition: int) -> str:
        """Sorted set of a partition's offsets delivered or delayed and not yet deleted
        (member and score both the offset); its least member bounds the ack floor."""
        return f"{self._tag}:unacked:{partition}"

    def core(self) -> list[str]:
        """The keys every claim takes, in the order the scripts take them."""
        return [
            self.timers,
            self.deliveries,
            self.cursors,
            self.delivery_seq,
            self.delayed,
            self.stats,
            self.ahead,
        ]

    def all(self, partitions: int = 1) -> list[str]:
        return [
            *self.core(),
            *self.fifo_keys(),
            self.dedup,
            self.dedup_expiry,
            self.dispatcher,
            *(self.unacked(p) for p in range(partitions)),
        ]


# Membership: every node's registration, under the one hash tag `{nodes}` so the scripts
# that read and prune it touch one slot. The set is small (one entry per node).
LIVE_NODES = f"{PREFIX}:{{nodes}}:live"
"""Sorted set of node ids, score = time (ms) the registration expires unless refreshed."""

NODE_INFO = f"{PREFIX}:{{nodes}}:info"
"""Hash node id -> "<registered ms>:<heartbeat ms>:<address>" (address last: it has colons)."""

# Gateways register the same way as nodes, in keys of their own (same hash tag).
LIVE_GATEWAYS = f"{PREFIX}:{{nodes}}:gateways:live"
GATEWAY_INFO = f"{PREFIX}:{{nodes}}:gateways:info"

PROCESS_REPORTS = f"{PREFIX}:{{nodes}}:reports"
"""Hash "<role>:<id>" -> JSON: what a node or gateway process last said of itself (pid,
partitions held, ...), for `tidemq cluster status`; written with each heartbeat."""


def partition_leases(stream_id: str) -> str:
    """Hash partition -> "<epoch>:<expires ms>:<ttl ms>:<node id>"; node id empty once released.

    A field is never deleted while the stream exists: it carries the partition's fencing
    epoch, which must never go down.
    """
    return f"{PREFIX}:{{s:{stream_id}}}:leases"

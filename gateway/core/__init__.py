"""The gateway's protocol-neutral core: one meaning of every operation for every API.

- broker.py       the operations (the only way into the control plane and storage)
- messages.py     message drafts, messages to send, sent and received messages
- validation.py   SQS's rules for a message, applied the same for every protocol
- errors.py       CoreError, the one error type protocols see, and its kinds
- queue_urls.py   queue names and URLs; digests.py SQS's MD5s
- filter_policies.py   SNS subscription filter policies (filter_operators.py reads a
                  key's values, filter_matchers.py matches messages)
- sender.py, receiver.py, move_tasks.py   sending, receiving and redriving, behind the broker
- consumables.py  what a receive consumes: a queue, or a pull subscription of a topic
- topics.py, publisher.py, subscription_protocols.py, subscription_attributes.py
                  SNS's topics and subscriptions, publishing; dispatcher.py and fanout.py
                  deliver the pushed ones, pull_subscriptions.py consumes and seeks the
                  pulled ones
- notifications.py   SNS's JSON envelopes and their signatures
- webhooks.py        posting to HTTP/S subscribers; delivery_policies.py and
                     retry_schedules.py their delivery policies and retries

The protocols (gateway/sqs, rest, ws) import from here and never from control_plane or
storage_nodes; docs/architecture.md has the import rules, which a test enforces.
"""

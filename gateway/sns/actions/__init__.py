"""The SNS actions: an action's parameters in, its result out, registered by name.

Handlers live in modules by subject, each registering its actions with `@action(name)`;
importing this package registers them all. An action not registered is refused with
InvalidAction before its parameters are parsed.
"""

from __future__ import annotations

from gateway.sns.actions.context import ACTIONS, Handler, SnsContext, action

__all__ = ["ACTIONS", "Handler", "SnsContext", "action"]

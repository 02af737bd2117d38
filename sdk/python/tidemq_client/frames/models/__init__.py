"""Contains all the data models used in inputs/outputs"""

from .ack import Ack
from .ack_op import AckOp
from .credit_set import CreditSet
from .credit_set_type import CreditSetType
from .cursor_set import CursorSet
from .cursor_set_type import CursorSetType
from .deliver import Deliver
from .deliver_type import DeliverType
from .entry_result import EntryResult
from .error_detail import ErrorDetail
from .error_frame import ErrorFrame
from .error_frame_type import ErrorFrameType
from .extend import Extend
from .extend_op import ExtendOp
from .message_attribute_value import MessageAttributeValue
from .nack import Nack
from .nack_op import NackOp
from .publish import Publish
from .publish_op import PublishOp
from .published import Published
from .published_type import PublishedType
from .received_message import ReceivedMessage
from .received_message_attributes import ReceivedMessageAttributes
from .received_message_system_attributes import ReceivedMessageSystemAttributes
from .seek import Seek
from .seek_op import SeekOp
from .send_message import SendMessage
from .send_message_attributes_type_0 import SendMessageAttributesType0
from .send_message_system_attributes_type_0 import SendMessageSystemAttributesType0
from .send_result import SendResult
from .set_credit import SetCredit
from .set_credit_op import SetCreditOp
from .settled import Settled
from .settled_op import SettledOp
from .settled_type import SettledType
from .subscribe import Subscribe
from .subscribe_op import SubscribeOp
from .subscribed import Subscribed
from .subscribed_type import SubscribedType
from .unsubscribe import Unsubscribe
from .unsubscribe_op import UnsubscribeOp
from .unsubscribed import Unsubscribed
from .unsubscribed_type import UnsubscribedType

__all__ = (
    "Ack",
    "AckOp",
    "CreditSet",
    "CreditSetType",
    "CursorSet",
    "CursorSetType",
    "Deliver",
    "DeliverType",
    "EntryResult",
    "ErrorDetail",
    "ErrorFrame",
    "ErrorFrameType",
    "Extend",
    "ExtendOp",
    "MessageAttributeValue",
    "Nack",
    "NackOp",
    "Publish",
    "PublishOp",
    "Published",
    "PublishedType",
    "ReceivedMessage",
    "ReceivedMessageAttributes",
    "ReceivedMessageSystemAttributes",
    "Seek",
    "SeekOp",
    "SendMessage",
    "SendMessageAttributesType0",
    "SendMessageSystemAttributesType0",
    "SendResult",
    "SetCredit",
    "SetCreditOp",
    "Settled",
    "SettledOp",
    "SettledType",
    "Subscribe",
    "SubscribeOp",
    "Subscribed",
    "SubscribedType",
    "Unsubscribe",
    "UnsubscribeOp",
    "Unsubscribed",
    "UnsubscribedType",
)

"""Contains all the data models used in inputs/outputs"""

from .add_tags import AddTags
from .add_tags_tags import AddTagsTags
from .archived_segment import ArchivedSegment
from .change_visibility import ChangeVisibility
from .create_queue import CreateQueue
from .create_queue_attributes_type_0 import CreateQueueAttributesType0
from .create_queue_tags_type_0 import CreateQueueTagsType0
from .create_subscription import CreateSubscription
from .create_subscription_attributes_type_0 import CreateSubscriptionAttributesType0
from .create_subscription_protocol import CreateSubscriptionProtocol
from .create_topic import CreateTopic
from .create_topic_attributes_type_0 import CreateTopicAttributesType0
from .create_topic_tags_type_0 import CreateTopicTagsType0
from .dead_letter_sources import DeadLetterSources
from .delete_messages import DeleteMessages
from .entry_result import EntryResult
from .entry_results import EntryResults
from .error_detail import ErrorDetail
from .error_response import ErrorResponse
from .message_attribute_value import MessageAttributeValue
from .move_task import MoveTask
from .move_task_cancelled import MoveTaskCancelled
from .move_task_cancelled_status import MoveTaskCancelledStatus
from .move_task_list import MoveTaskList
from .move_task_started import MoveTaskStarted
from .move_task_status import MoveTaskStatus
from .partition_archive import PartitionArchive
from .published_message import PublishedMessage
from .queue import Queue
from .queue_archive import QueueArchive
from .queue_attributes import QueueAttributes
from .queue_list import QueueList
from .queue_ref import QueueRef
from .queue_stats import QueueStats
from .receive import Receive
from .received_message import ReceivedMessage
from .received_message_attributes import ReceivedMessageAttributes
from .received_message_system_attributes import ReceivedMessageSystemAttributes
from .received_messages import ReceivedMessages
from .remove_tags import RemoveTags
from .seek import Seek
from .send_batch import SendBatch
from .send_batch_results import SendBatchResults
from .send_message import SendMessage
from .send_message_attributes_type_0 import SendMessageAttributesType0
from .send_message_system_attributes_type_0 import SendMessageSystemAttributesType0
from .send_result import SendResult
from .sent_message import SentMessage
from .set_queue_attributes import SetQueueAttributes
from .set_queue_attributes_attributes import SetQueueAttributesAttributes
from .set_subscription_attributes import SetSubscriptionAttributes
from .set_subscription_attributes_attributes import SetSubscriptionAttributesAttributes
from .set_topic_attributes import SetTopicAttributes
from .set_topic_attributes_attributes import SetTopicAttributesAttributes
from .sought import Sought
from .start_move_task import StartMoveTask
from .subscription import Subscription
from .subscription_attributes import SubscriptionAttributes
from .subscription_list import SubscriptionList
from .subscription_stats import SubscriptionStats
from .tag_list import TagList
from .tag_list_tags import TagListTags
from .topic import Topic
from .topic_attributes import TopicAttributes
from .topic_list import TopicList
from .topic_ref import TopicRef
from .visibility_change import VisibilityChange

__all__ = (
    "AddTags",
    "AddTagsTags",
    "ArchivedSegment",
    "ChangeVisibility",
    "CreateQueue",
    "CreateQueueAttributesType0",
    "CreateQueueTagsType0",
    "CreateSubscription",
    "CreateSubscriptionAttributesType0",
    "CreateSubscriptionProtocol",
    "CreateTopic",
    "CreateTopicAttributesType0",
    "CreateTopicTagsType0",
    "DeadLetterSources",
    "DeleteMessages",
    "EntryResult",
    "EntryResults",
    "ErrorDetail",
    "ErrorResponse",
    "MessageAttributeValue",
    "MoveTask",
    "MoveTaskCancelled",
    "MoveTaskCancelledStatus",
    "MoveTaskList",
    "MoveTaskStarted",
    "MoveTaskStatus",
    "PartitionArchive",
    "PublishedMessage",
    "Queue",
    "QueueArchive",
    "QueueAttributes",
    "QueueList",
    "QueueRef",
    "QueueStats",
    "Receive",
    "ReceivedMessage",
    "ReceivedMessageAttributes",
    "ReceivedMessageSystemAttributes",
    "ReceivedMessages",
    "RemoveTags",
    "Seek",
    "SendBatch",
    "SendBatchResults",
    "SendMessage",
    "SendMessageAttributesType0",
    "SendMessageSystemAttributesType0",
    "SendResult",
    "SentMessage",
    "SetQueueAttributes",
    "SetQueueAttributesAttributes",
    "SetSubscriptionAttributes",
    "SetSubscriptionAttributesAttributes",
    "SetTopicAttributes",
    "SetTopicAttributesAttributes",
    "Sought",
    "StartMoveTask",
    "Subscription",
    "SubscriptionAttributes",
    "SubscriptionList",
    "SubscriptionStats",
    "TagList",
    "TagListTags",
    "Topic",
    "TopicAttributes",
    "TopicList",
    "TopicRef",
    "VisibilityChange",
)

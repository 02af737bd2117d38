"""Contains all the data models used in inputs/outputs"""

from .add_tags import AddTags
from .add_tags_tags import AddTagsTags
from .archived_segment import ArchivedSegment
from .change_visibility import ChangeVisibility
from .create_queue import CreateQueue
from .create_queue_attributes_type_0 import CreateQueueAttributesType0
from .create_queue_tags_type_0 import CreateQueueTagsType0
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
from .send_batch import SendBatch
from .send_batch_results import SendBatchResults
from .send_message import SendMessage
from .send_message_attributes_type_0 import SendMessageAttributesType0
from .send_message_system_attributes_type_0 import SendMessageSystemAttributesType0
from .send_result import SendResult
from .sent_message import SentMessage
from .set_queue_attributes import SetQueueAttributes
from .set_queue_attributes_attributes import SetQueueAttributesAttributes
from .start_move_task import StartMoveTask
from .tag_list import TagList
from .tag_list_tags import TagListTags
from .visibility_change import VisibilityChange

__all__ = (
    "AddTags",
    "AddTagsTags",
    "ArchivedSegment",
    "ChangeVisibility",
    "CreateQueue",
    "CreateQueueAttributesType0",
    "CreateQueueTagsType0",
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
    "SendBatch",
    "SendBatchResults",
    "SendMessage",
    "SendMessageAttributesType0",
    "SendMessageSystemAttributesType0",
    "SendResult",
    "SentMessage",
    "SetQueueAttributes",
    "SetQueueAttributesAttributes",
    "StartMoveTask",
    "TagList",
    "TagListTags",
    "VisibilityChange",
)

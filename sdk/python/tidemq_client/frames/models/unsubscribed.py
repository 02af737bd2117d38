from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.unsubscribed_type import UnsubscribedType, check_unsubscribed_type
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_detail import ErrorDetail


T = TypeVar("T", bound="Unsubscribed")


@_attrs_define
class Unsubscribed:
    """The answer to `unsubscribe`; or, with `reason` and no `id`, the server ended the
    subscription (its queue was deleted).

    Attributes:
        type_ (UnsubscribedType):
        queue (str):
        reason (ErrorDetail | None | Unset):
        id (None | str | Unset):
    """

    type_: UnsubscribedType
    queue: str
    reason: ErrorDetail | None | Unset = UNSET
    id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.error_detail import ErrorDetail

        type_: str = self.type_

        queue = self.queue

        reason: dict[str, Any] | None | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        elif isinstance(self.reason, ErrorDetail):
            reason = self.reason.to_dict()
        else:
            reason = self.reason

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "queue": queue,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_detail import ErrorDetail

        d = dict(src_dict)
        type_ = check_unsubscribed_type(d.pop("type"))

        queue = d.pop("queue")

        def _parse_reason(data: object) -> ErrorDetail | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reason_type_0 = ErrorDetail.from_dict(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErrorDetail | None | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        unsubscribed = cls(
            type_=type_,
            queue=queue,
            reason=reason,
            id=id,
        )

        unsubscribed.additional_properties = d
        return unsubscribed

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties

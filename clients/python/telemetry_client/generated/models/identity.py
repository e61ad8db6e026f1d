from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.identity_bound_to import IdentityBoundTo
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.features import Features
  from ..models.rate_limit import RateLimit





T = TypeVar("T", bound="Identity")



@_attrs_define
class Identity:
    """ 
        Attributes:
            key_id (UUID): Id of the API key.
            key_name (str): Name of the API key.
            bound_to (IdentityBoundTo): `partner` or `sub_account`.
            partner_id (UUID): Id of the partner.
            partner_name (str): Name of the partner.
            sub_account_id (None | UUID): Id of the sub-account it belongs to (null for a partner's inventory).
            sub_account_name (None | str): Name of that sub-account.
            scopes (list[str]): Scopes of the key.
            api_write (bool): Whether the plan allows API writes (downlinks, multicast).
            retention_days (int): Days of telemetry history the plan serves.
            features (Features):
            rate_limit (RateLimit):
            expires_at (datetime.datetime | None): When the item or key expires (RFC 3339 UTC), or null for never.
     """

    key_id: UUID
    key_name: str
    bound_to: IdentityBoundTo
    partner_id: UUID
    partner_name: str
    sub_account_id: None | UUID
    sub_account_name: None | str
    scopes: list[str]
    api_write: bool
    retention_days: int
    features: Features
    rate_limit: RateLimit
    expires_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.features import Features # noqa: PLC0415
        from ..models.rate_limit import RateLimit # noqa: PLC0415
        key_id = str(self.key_id)

        key_name = self.key_name

        bound_to = self.bound_to.value

        partner_id = str(self.partner_id)

        partner_name = self.partner_name

        sub_account_id: None | str
        if isinstance(self.sub_account_id, UUID):
            sub_account_id = str(self.sub_account_id)
        else:
            sub_account_id = self.sub_account_id

        sub_account_name: None | str
        sub_account_name = self.sub_account_name

        scopes = self.scopes



        api_write = self.api_write

        retention_days = self.retention_days

        features = self.features.to_dict()

        rate_limit = self.rate_limit.to_dict()

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "keyId": key_id,
            "keyName": key_name,
            "boundTo": bound_to,
            "partnerId": partner_id,
            "partnerName": partner_name,
            "subAccountId": sub_account_id,
            "subAccountName": sub_account_name,
            "scopes": scopes,
            "apiWrite": api_write,
            "retentionDays": retention_days,
            "features": features,
            "rateLimit": rate_limit,
            "expiresAt": expires_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.features import Features # noqa: PLC0415
        from ..models.rate_limit import RateLimit # noqa: PLC0415
        d = dict(src_dict)
        key_id = UUID(d.pop("keyId"))




        key_name = d.pop("keyName")

        bound_to = IdentityBoundTo(d.pop("boundTo"))




        partner_id = UUID(d.pop("partnerId"))




        partner_name = d.pop("partnerName")

        def _parse_sub_account_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sub_account_id_type_0 = UUID(data)



                return sub_account_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        sub_account_id = _parse_sub_account_id(d.pop("subAccountId"))


        def _parse_sub_account_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        sub_account_name = _parse_sub_account_name(d.pop("subAccountName"))


        scopes = cast(list[str], d.pop("scopes"))


        api_write = d.pop("apiWrite")

        retention_days = d.pop("retentionDays")

        features = Features.from_dict(d.pop("features"))




        rate_limit = RateLimit.from_dict(d.pop("rateLimit"))




        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expiresAt"))


        identity = cls(
            key_id=key_id,
            key_name=key_name,
            bound_to=bound_to,
            partner_id=partner_id,
            partner_name=partner_name,
            sub_account_id=sub_account_id,
            sub_account_name=sub_account_name,
            scopes=scopes,
            api_write=api_write,
            retention_days=retention_days,
            features=features,
            rate_limit=rate_limit,
            expires_at=expires_at,
        )


        identity.additional_properties = d
        return identity

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

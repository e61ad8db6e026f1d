from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.profile_field_data_type import ProfileFieldDataType
from ..models.profile_field_kind import ProfileFieldKind
from ..models.profile_field_measurement_type_1 import ProfileFieldMeasurementType1
from ..models.profile_field_measurement_type_2_type_1 import ProfileFieldMeasurementType2Type1
from ..models.profile_field_measurement_type_3_type_1 import ProfileFieldMeasurementType3Type1
from ..models.profile_field_role_type_1 import ProfileFieldRoleType1
from ..models.profile_field_role_type_2_type_1 import ProfileFieldRoleType2Type1
from ..models.profile_field_role_type_3_type_1 import ProfileFieldRoleType3Type1
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="ProfileField")



@_attrs_define
class ProfileField:
    """ 
        Attributes:
            id (UUID): Service id (UUID, lowercase).
            identifier (str): Stable field identifier, the key in `values`.
            label (str): Human label of the field.
            unit (str): Unit of the field's values (may be empty).
            data_type (ProfileFieldDataType): `number`, `string`, `boolean`, `date` (YYYY-MM-DD) or `location`.
            kind (ProfileFieldKind): `decoded`, `static`, `formula` or `mapping`.
            role (None | ProfileFieldRoleType1 | ProfileFieldRoleType2Type1 | ProfileFieldRoleType3Type1): `battery_pct` for
                the field holding the battery percentage, else null.
            measurement (None | ProfileFieldMeasurementType1 | ProfileFieldMeasurementType2Type1 |
                ProfileFieldMeasurementType3Type1): What the readings measure: `gauge` (a level; numbers by default), `counter`
                (a running total that only grows, except when the device resets it; takes `increase`), `state` (strings and
                booleans; takes `duration`), or null (dates and locations).
     """

    id: UUID
    identifier: str
    label: str
    unit: str
    data_type: ProfileFieldDataType
    kind: ProfileFieldKind
    role: None | ProfileFieldRoleType1 | ProfileFieldRoleType2Type1 | ProfileFieldRoleType3Type1
    measurement: None | ProfileFieldMeasurementType1 | ProfileFieldMeasurementType2Type1 | ProfileFieldMeasurementType3Type1
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        identifier = self.identifier

        label = self.label

        unit = self.unit

        data_type = self.data_type.value

        kind = self.kind.value

        role: None | str
        if isinstance(self.role, ProfileFieldRoleType1):
            role = self.role.value
        elif isinstance(self.role, ProfileFieldRoleType2Type1):
            role = self.role.value
        elif isinstance(self.role, ProfileFieldRoleType3Type1):
            role = self.role.value
        else:
            role = self.role

        measurement: None | str
        if isinstance(self.measurement, ProfileFieldMeasurementType1):
            measurement = self.measurement.value
        elif isinstance(self.measurement, ProfileFieldMeasurementType2Type1):
            measurement = self.measurement.value
        elif isinstance(self.measurement, ProfileFieldMeasurementType3Type1):
            measurement = self.measurement.value
        else:
            measurement = self.measurement


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "identifier": identifier,
            "label": label,
            "unit": unit,
            "dataType": data_type,
            "kind": kind,
            "role": role,
            "measurement": measurement,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = UUID(d.pop("id"))




        identifier = d.pop("identifier")

        label = d.pop("label")

        unit = d.pop("unit")

        data_type = ProfileFieldDataType(d.pop("dataType"))




        kind = ProfileFieldKind(d.pop("kind"))




        def _parse_role(data: object) -> None | ProfileFieldRoleType1 | ProfileFieldRoleType2Type1 | ProfileFieldRoleType3Type1:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_1 = ProfileFieldRoleType1(data)



                return role_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_2_type_1 = ProfileFieldRoleType2Type1(data)



                return role_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_3_type_1 = ProfileFieldRoleType3Type1(data)



                return role_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ProfileFieldRoleType1 | ProfileFieldRoleType2Type1 | ProfileFieldRoleType3Type1, data)

        role = _parse_role(d.pop("role"))


        def _parse_measurement(data: object) -> None | ProfileFieldMeasurementType1 | ProfileFieldMeasurementType2Type1 | ProfileFieldMeasurementType3Type1:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                measurement_type_1 = ProfileFieldMeasurementType1(data)



                return measurement_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                measurement_type_2_type_1 = ProfileFieldMeasurementType2Type1(data)



                return measurement_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                measurement_type_3_type_1 = ProfileFieldMeasurementType3Type1(data)



                return measurement_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ProfileFieldMeasurementType1 | ProfileFieldMeasurementType2Type1 | ProfileFieldMeasurementType3Type1, data)

        measurement = _parse_measurement(d.pop("measurement"))


        profile_field = cls(
            id=id,
            identifier=identifier,
            label=label,
            unit=unit,
            data_type=data_type,
            kind=kind,
            role=role,
            measurement=measurement,
        )


        profile_field.additional_properties = d
        return profile_field

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

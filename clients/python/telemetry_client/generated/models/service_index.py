from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ServiceIndex")



@_attrs_define
class ServiceIndex:
    """ 
        Attributes:
            name (str): The service.
            version (str): Version of the API (also in openapi.json).
            docs (str): Path of the interactive reference.
            openapi (str): Path of the OpenAPI 3.1 document.
            health (str): Path of the health check (no key).
     """

    name: str
    version: str
    docs: str
    openapi: str
    health: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        version = self.version

        docs = self.docs

        openapi = self.openapi

        health = self.health


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "name": name,
            "version": version,
            "docs": docs,
            "openapi": openapi,
            "health": health,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        version = d.pop("version")

        docs = d.pop("docs")

        openapi = d.pop("openapi")

        health = d.pop("health")

        service_index = cls(
            name=name,
            version=version,
            docs=docs,
            openapi=openapi,
            health=health,
        )


        service_index.additional_properties = d
        return service_index

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

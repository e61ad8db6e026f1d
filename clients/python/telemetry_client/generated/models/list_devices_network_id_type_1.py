from enum import StrEnum

class ListDevicesNetworkIdType1(StrEnum):
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)

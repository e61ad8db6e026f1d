from enum import StrEnum

class GetFleetLatestNetworkIdType1(StrEnum):
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)

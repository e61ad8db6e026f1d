from enum import StrEnum

class GetFleetLatestSiteIdType1(StrEnum):
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)

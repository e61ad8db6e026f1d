from enum import StrEnum

class StreamLatestSiteIdType1(StrEnum):
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)

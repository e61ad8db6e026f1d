from enum import StrEnum

class GetDeviceHistoryDownsample(StrEnum):
    LTTB = "lttb"
    MINMAX = "minmax"

    def __str__(self) -> str:
        return str(self.value)

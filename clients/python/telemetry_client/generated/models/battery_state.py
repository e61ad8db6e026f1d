from enum import StrEnum

class BatteryState(StrEnum):
    EXTERNAL = "external"
    PCT = "pct"
    UNAVAILABLE = "unavailable"

    def __str__(self) -> str:
        return str(self.value)

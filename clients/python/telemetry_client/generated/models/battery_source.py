from enum import StrEnum

class BatterySource(StrEnum):
    FIELD = "field"
    STATUS = "status"

    def __str__(self) -> str:
        return str(self.value)

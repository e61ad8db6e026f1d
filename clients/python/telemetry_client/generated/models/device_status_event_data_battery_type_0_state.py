from enum import StrEnum

class DeviceStatusEventDataBatteryType0State(StrEnum):
    EXTERNAL = "external"
    PCT = "pct"
    UNAVAILABLE = "unavailable"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum

class DeviceStatusEventDataBatteryType0Source(StrEnum):
    FIELD = "field"
    STATUS = "status"

    def __str__(self) -> str:
        return str(self.value)

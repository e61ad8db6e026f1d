from enum import StrEnum

class DeviceUplinkEventDataBatteryType0Source(StrEnum):
    FIELD = "field"
    STATUS = "status"

    def __str__(self) -> str:
        return str(self.value)

from enum import StrEnum

class DeviceAlertClearedEventDataLevel(StrEnum):
    ALERT = "alert"
    INFO = "info"
    WARNING = "warning"

    def __str__(self) -> str:
        return str(self.value)

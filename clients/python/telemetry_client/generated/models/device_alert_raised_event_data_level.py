from enum import StrEnum

class DeviceAlertRaisedEventDataLevel(StrEnum):
    ALERT = "alert"
    INFO = "info"
    WARNING = "warning"

    def __str__(self) -> str:
        return str(self.value)

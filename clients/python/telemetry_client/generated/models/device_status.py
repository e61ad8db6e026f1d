from enum import StrEnum

class DeviceStatus(StrEnum):
    ARCHIVED = "archived"
    ASSIGNED = "assigned"
    INVENTORY = "inventory"

    def __str__(self) -> str:
        return str(self.value)

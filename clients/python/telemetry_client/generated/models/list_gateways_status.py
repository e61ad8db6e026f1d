from enum import StrEnum

class ListGatewaysStatus(StrEnum):
    ALL = "all"
    ARCHIVED = "archived"
    ASSIGNED = "assigned"
    INVENTORY = "inventory"

    def __str__(self) -> str:
        return str(self.value)

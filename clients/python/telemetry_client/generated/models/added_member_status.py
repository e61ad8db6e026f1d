from enum import StrEnum

class AddedMemberStatus(StrEnum):
    ACTIVE = "active"
    PENDING_INVITE = "pending_invite"
    SUSPENDED = "suspended"

    def __str__(self) -> str:
        return str(self.value)

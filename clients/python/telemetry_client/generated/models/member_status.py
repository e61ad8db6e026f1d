from enum import StrEnum

class MemberStatus(StrEnum):
    ACTIVE = "active"
    PENDING_INVITE = "pending_invite"
    SUSPENDED = "suspended"

    def __str__(self) -> str:
        return str(self.value)

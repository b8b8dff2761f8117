"""One invitation link, many people at once (PostgreSQL, real threads and connections): one
account is made and joins; every other attempt is refused and leaves no account behind."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections

from annotate.models import Invitation, Membership
from annotate.services.invitations import (
    InvitationRefused,
    Invitee,
    invitation_accept_new,
    invitations_create,
)

PEOPLE = 8
PASSWORD = "plum-orchard-violin-42"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_link_opened_by_many_at_once_makes_one_account(personas):
    assert connection.vendor == "postgresql"
    [issued] = invitations_create(
        campaign=personas.campaign, created_by=personas.manager, invitees=[Invitee("x")]
    )
    start = threading.Barrier(PEOPLE)
    made, refused, other = [], [], []
    lock = threading.Lock()

    def accept(n: int) -> None:
        try:
            start.wait(timeout=30)
            user = invitation_accept_new(
                secret=issued.secret, username=f"person{n}", password=PASSWORD
            )
            with lock:
                made.append(user.get_username())
        except InvitationRefused:
            with lock:
                refused.append(n)
        except BaseException as exc:  # reported by the assertion below
            with lock:
                other.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=accept, args=(n,)) for n in range(PEOPLE)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert other == []
    assert len(made) == 1 and len(refused) == PEOPLE - 1
    users = get_user_model().objects.filter(username__startswith="person")
    assert list(users.values_list("username", flat=True)) == made
    assert Invitation.objects.get().accepted_by.get_username() == made[0]
    assert Membership.objects.filter(campaign=personas.campaign, user__in=users).count() == 1

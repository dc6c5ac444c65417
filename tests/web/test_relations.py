"""Follows and blocks (accounts.relations): the one place matchmaking, challenges and chat ask."""

import pytest
from django.db import IntegrityError

from accounts import relations
from accounts.models import Block, Follow
from tests.players import create_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann():
    return create_player("ann")


@pytest.fixture
def bob():
    return create_player("bob")


def test_following_is_one_way_and_friends_are_two(ann, bob):
    assert relations.follow(ann, bob)
    assert not relations.follow(ann, bob)  # once
    assert relations.follows(ann, bob) and not relations.follows(bob, ann)
    assert relations.friend_ids(ann) == set()
    relations.follow(bob, ann)
    assert relations.friend_ids(ann) == {bob.pk} and relations.friend_ids(bob) == {ann.pk}


def test_the_followed_player_may_remove_a_follower(ann, bob):
    relations.follow(ann, bob)
    assert relations.remove_follower(bob, ann)
    assert not relations.follows(ann, bob)


def test_nobody_follows_or_blocks_themselves(ann):
    assert not relations.follow(ann, ann)
    assert not relations.block(ann, ann)
    with pytest.raises(IntegrityError):
        Follow.objects.create(follower=ann, followed=ann)


def test_a_block_ends_following_both_ways_and_keeps_both_apart(ann, bob):
    carl = create_player("carl")
    relations.follow(ann, bob)
    relations.follow(bob, ann)
    assert relations.block(ann, bob)
    assert not Follow.objects.exists()
    assert not relations.follow(bob, ann)  # the blocked player cannot follow back
    assert relations.apart(ann, bob) and relations.apart(bob, ann)
    assert relations.blocked_ids(ann) == {bob.pk} and relations.blocked_ids(bob) == set()
    assert relations.apart_ids(bob) == {ann.pk}
    assert relations.any_apart([carl.pk, ann.pk, bob.pk])
    assert not relations.any_apart([carl.pk, ann.pk])
    assert relations.unblock(ann, bob) and not Block.objects.exists()

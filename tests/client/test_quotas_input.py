"""Quota input refused where it is made, in the words of whoever made it (#18 items 6, 7 and 10).

The library refuses a near miss of an entity type when the entity is built (not at alter time with a hint
about unknown keys), and says what it meant; the CLI turns the library's refusals into its own flags.
"""

from __future__ import annotations

import pytest

from kadmin.quotas import (
    ClientQuotaAlteration,
    ClientQuotaEntity,
    ClientQuotaFilterComponent,
    Set,
    UnknownQuotaKeyError,
    validate_alterations,
)


@pytest.mark.parametrize(("given", "meant"), [
    ("client_id", "client-id"), ("Client-Id", "client-id"), ("clientid", "client-id"), ("client id", "client-id"),
    ("User", "user"), ("users", "user"), ("IP", "ip"), ("ips", "ip"),
])
def test_entity_type_near_misses_are_refused_at_construction(given: str, meant: str) -> None:
    with pytest.raises(ValueError, match=rf"unknown entity type '{given}': did you mean '{meant}'\?"):
        ClientQuotaEntity({given: "a"})
    with pytest.raises(ValueError, match=rf"did you mean '{meant}'\?"):
        ClientQuotaEntity([("user", "alice"), (given, "a")] if meant != "user" else [(given, "a")])
    with pytest.raises(ValueError, match=rf"did you mean '{meant}'\?"):
        ClientQuotaFilterComponent.exact(given, "a")


def test_other_entity_types_stay_allowed() -> None:
    # A type kadmin does not know (a newer broker's) is still an entity; its keys need allow_unknown_keys.
    entity = ClientQuotaEntity({"group": "g"})
    assert entity.types == ("group",)
    assert ClientQuotaEntity({"user": "a", "client-id": None}).types == ("user", "client-id")


def test_unknown_key_error_names_the_key_and_a_close_match() -> None:
    alice = ClientQuotaEntity({"user": "alice"})
    with pytest.raises(UnknownQuotaKeyError) as exc:
        validate_alterations([ClientQuotaAlteration(alice, [Set("producer_byte_rat", 5.0)])])
    assert isinstance(exc.value, ValueError)
    assert exc.value.key == "producer_byte_rat" and exc.value.entity == alice
    assert "did you mean 'producer_byte_rate'?" in str(exc.value) and "allow_unknown_keys=True" in str(exc.value)
    with pytest.raises(UnknownQuotaKeyError, match="known: consumer_byte_rate, controller_mutation_rate"):
        validate_alterations([ClientQuotaAlteration(alice, [Set("foo_rate", 3.0)])])


def test_negative_zero_says_what_to_write_instead() -> None:
    with pytest.raises(ValueError, match=r"value -0.0 is a negative zero .*; use 0.0"):
        ClientQuotaAlteration(ClientQuotaEntity({"user": "a"}), [Set("request_percentage", -0.0)])
    with pytest.raises(ValueError, match=r"value -1.0 is negative$"):
        ClientQuotaAlteration(ClientQuotaEntity({"user": "a"}), [Set("request_percentage", -1.0)])

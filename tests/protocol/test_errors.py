"""The error-code table and the classes kadmin.errors generates from it.

Retry loops across kadmin branch on ``err.retriable`` and on specific classes (NotCoordinatorError,
GroupIdNotFoundError, ...), so a wrong flag or a silently shadowed class name would change behaviour without
any other test noticing.  These tests pin the table's shape and a few values that matter in practice.
"""

from __future__ import annotations

import pytest

from kadmin import errors
from kadmin._error_codes import ERROR_CODES

# Highest code Kafka 4.1 defines (SHARE_SESSION_LIMIT_REACHED).
HIGHEST_CODE = 133

# Codes whose Java exception class extends RetriableException (directly or via InvalidMetadataException).
RETRIABLE_CODES = frozenset(
    {
        2,
        3,
        5,
        6,
        7,
        9,
        13,
        14,
        15,
        16,
        19,
        20,
        41,
        51,
        56,
        70,
        71,
        72,
        74,
        75,
        78,
        80,
        83,
        84,
        88,
        89,
        100,
        103,
        106,
        122,
        123,
        133,
    }
)

AUTHORIZATION_CODES = frozenset({29, 30, 31, 53, 65})


def test_table_covers_every_code_once() -> None:
    codes = [row[0] for row in ERROR_CODES]
    assert codes == sorted(codes), "keep the table sorted by code so gaps are easy to see"
    assert codes == list(range(-1, HIGHEST_CODE + 1))


def test_names_are_unique_and_upper_snake() -> None:
    names = [row[1] for row in ERROR_CODES]
    assert len(set(names)) == len(names)
    for name in names:
        assert name == name.upper() and " " not in name, name


def test_rows_are_well_typed() -> None:
    for code, name, retriable, message in ERROR_CODES:
        assert isinstance(code, int) and isinstance(name, str)
        assert isinstance(retriable, bool) and isinstance(message, str)
        if code != 0:
            assert message, f"{name} needs a message"


def test_retriable_flags_match_java_client() -> None:
    flagged = {code for code, _, retriable, _ in ERROR_CODES if retriable}
    assert flagged == RETRIABLE_CODES


@pytest.mark.parametrize(("code", "name", "retriable", "message"), [r for r in ERROR_CODES if r[0] != 0])
def test_each_code_has_its_class(code: int, name: str, retriable: bool, message: str) -> None:
    cls = errors.error_class_for_code(code)
    assert cls is not None
    assert issubclass(cls, errors.BrokerError)
    assert cls.code == code
    assert cls.name == name
    assert cls.retriable is retriable
    # The class is reachable by its derived name, i.e. no later row overwrote it.
    assert getattr(errors, cls.__name__) is cls
    err = errors.error_for_code(code)
    assert isinstance(err, cls)
    assert err.message == message
    assert errors.is_retriable(err) is retriable


def test_classes_are_distinct() -> None:
    classes = [errors.error_class_for_code(code) for code, *_ in ERROR_CODES if code != 0]
    assert len(set(classes)) == len(classes)
    names = [c.__name__ for c in classes if c is not None]
    assert len(set(names)) == len(names)


def test_generated_names_do_not_shadow_hand_written_classes() -> None:
    hand_written = {
        "KafkaError",
        "BrokerError",
        "UnknownBrokerError",
        "ProtocolError",
        "SchemaError",
        "FieldVersionError",
        "KafkaConnectionError",
        "KafkaTimeoutError",
        "NoBrokersAvailableError",
        "ClientClosedError",
        "ForkedProcessError",
        "AuthenticationError",
        "AuthorizationError",
    }
    generated = {errors._class_name(name) for code, name, *_ in ERROR_CODES if code != 0}
    assert not (generated & hand_written)


def test_spot_checks() -> None:
    not_coordinator = errors.error_for_code(16)
    assert isinstance(not_coordinator, errors.NotCoordinatorError)
    assert not_coordinator.retriable
    assert not_coordinator.name == "NOT_COORDINATOR"

    not_found = errors.error_for_code(69)
    assert isinstance(not_found, errors.GroupIdNotFoundError)
    assert not not_found.retriable

    unsupported = errors.error_for_code(35)
    assert isinstance(unsupported, errors.UnsupportedVersionError)
    assert unsupported.name == "UNSUPPORTED_VERSION"
    assert not unsupported.retriable

    # Easy to get wrong: these look transient but the Java client does not retry them.
    for code in (8, 27, 113, 129):
        err = errors.error_for_code(code)
        assert err is not None and not err.retriable, code
    # And these are retriable although the names do not say so.
    for code in (2, 41, 51, 84, 89):
        err = errors.error_for_code(code)
        assert err is not None and err.retriable, code


def test_unknown_code() -> None:
    err = errors.error_for_code(9999)
    assert type(err) is errors.UnknownBrokerError
    assert err.code == 9999
    assert not err.retriable
    assert errors.error_class_for_code(9999) is None
    with_text = errors.error_for_code(9999, "boom")
    assert with_text is not None and with_text.message == "boom"


def test_zero_is_no_error() -> None:
    assert errors.error_for_code(0) is None
    assert errors.error_class_for_code(0) is None


@pytest.mark.parametrize("code", sorted(AUTHORIZATION_CODES))
def test_authorization_codes_are_authorization_errors(code: int) -> None:
    cls = errors.error_class_for_code(code)
    assert cls is not None and issubclass(cls, errors.AuthorizationError)


def test_only_authorization_codes_are_authorization_errors() -> None:
    auth = {
        code
        for code, *_ in ERROR_CODES
        if code != 0 and issubclass(errors.error_class_for_code(code) or object, errors.AuthorizationError)
    }
    assert auth == AUTHORIZATION_CODES


@pytest.mark.parametrize("code", [33, 34, 58])
def test_sasl_codes_are_authentication_errors(code: int) -> None:
    cls = errors.error_class_for_code(code)
    assert cls is not None and issubclass(cls, errors.AuthenticationError)


def test_rebound_names_exist() -> None:
    assert errors.UnknownServerError.code == -1
    assert errors.UnsupportedVersionError.code == 35
    assert errors.NotCoordinatorError.code == 16
    assert errors.CoordinatorNotAvailableError.code == 15
    assert errors.CoordinatorLoadInProgressError.code == 14
    assert errors.GroupIdNotFoundError.code == 69
    assert errors.NonEmptyGroupError.code == 68
    assert errors.InvalidRequestError.code == 42
    assert errors.RequestTimedOutError.code == 7
    assert errors.SaslAuthenticationFailedError.code == 58
    assert errors.UnsupportedSaslMechanismError.code == 33

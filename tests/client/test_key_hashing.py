"""TopicPartition and ConfigResource hash once (they are the keys of per-partition / per-resource calls): the
cached hash must behave exactly like the fields' hash, stay out of eq/repr/asdict, and never travel in a pickle
(str hashes differ between processes, e.g. a Spark executor's)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys

import pytest

from kadmin.configs import ConfigResource, ConfigResourceType
from kadmin.storage import validate_partition
from kadmin.types import TopicPartition


def test_topic_partition_hash_and_value_semantics() -> None:
    tp = TopicPartition("orders", 3)
    assert hash(tp) == hash(("orders", 3)) == hash(TopicPartition("orders", 3))
    assert {tp: 1}[TopicPartition("orders", 3)] == 1
    assert repr(tp) == "TopicPartition(topic='orders', partition=3)"
    assert dataclasses.asdict(tp) == {"topic": "orders", "partition": 3}
    moved = dataclasses.replace(tp, partition=4)
    assert hash(moved) == hash(("orders", 4)) and moved != tp
    assert sorted([TopicPartition("b", 0), TopicPartition("a", 9)])[0] == TopicPartition("a", 9)
    for twin in (pickle.loads(pickle.dumps(tp)), copy.copy(tp), copy.deepcopy(tp)):
        assert twin == tp and hash(twin) == hash(tp)
    with pytest.raises(dataclasses.FrozenInstanceError):
        tp.partition = 5  # type: ignore[misc]


def test_config_resource_hash_and_value_semantics() -> None:
    r = ConfigResource.topic("orders")
    assert hash(r) == hash((ConfigResourceType.TOPIC, "orders")) == hash(ConfigResource(ConfigResourceType.TOPIC,
                                                                                        "orders"))
    assert r != ConfigResource.broker(1) and {r: 1}[ConfigResource.topic("orders")] == 1
    assert repr(r) == "ConfigResource(type=<ConfigResourceType.TOPIC: 2>, name='orders')"
    assert dataclasses.asdict(r) == {"type": ConfigResourceType.TOPIC, "name": "orders"}
    for twin in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r)):
        assert twin == r and hash(twin) == hash(r)


@pytest.mark.parametrize("seed", ["1", "2"])
def test_pickled_keys_are_found_in_a_process_with_another_hash_seed(seed: str) -> None:
    code = ("import pickle, sys; from kadmin.types import TopicPartition; from kadmin.configs import "
            "ConfigResource; tp, r = pickle.loads(sys.stdin.buffer.read()); "
            "print({TopicPartition('orders', 3): 1}.get(tp), {ConfigResource.topic('orders'): 2}.get(r))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                         input=pickle.dumps((TopicPartition("orders", 3), ConfigResource.topic("orders"))),
                         env={"PYTHONHASHSEED": seed, "PATH": ""})
    assert out.stdout.split() == [b"1", b"2"], out.stderr


def test_an_illegal_topic_in_a_partition_key_names_the_key() -> None:
    with pytest.raises(ValueError, match=r"contains '!'.*\(in partition TopicPartition\(topic='bad!'"):
        validate_partition(("bad!", 0))
    with pytest.raises(TypeError, match="must be a str"):
        validate_partition((7, 0))


@pytest.mark.parametrize(("key", "exc", "text"), [
    ((["x"], 0), TypeError, "a topic name must be a str, not list"),
    (("t", [1]), ValueError, "invalid partition number"),
])
def test_an_unhashable_field_still_gets_validations_message(key: tuple[object, object], exc: type[Exception],
                                                            text: str) -> None:
    # The hash is cached at construction; a field that cannot be hashed must not pre-empt the clear message.
    with pytest.raises(exc, match=text):
        validate_partition(key)


def test_an_unhashable_resource_name_gets_validations_message() -> None:
    from kadmin.configs import validate_resource

    with pytest.raises(TypeError, match="a config resource name is a str, not list"):
        validate_resource(("topic", ["x"]))
    odd = TopicPartition(["x"], 0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unhashable"):
        hash(odd)

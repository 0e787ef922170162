"""DescribeProducers (key 61, KIP-664): the producers a partition leader holds state for.

As Kafka's KafkaApis.handleDescribeProducersRequest: READ on the topic (TOPIC_AUTHORIZATION_FAILED), the
partition existing (UNKNOWN_TOPIC_OR_PARTITION) and led here (NOT_LEADER_OR_FOLLOWER); then every producer of
the partition's state (kadmin.testing.producer_state): its id and epoch, the sequence and timestamp of its
last batch (or marker), the epoch of the coordinator that wrote its last marker, and the first offset of its
open transaction (-1 for none), which is what ``find_hanging_transactions`` starts from.
"""

from __future__ import annotations

from typing import Any

from kadmin._error_codes import ErrorCode
from kadmin.protocol.apis import ApiKey
from kadmin.testing import authorizer as az
from kadmin.testing import producer_state
from kadmin.testing.handlers.base import RequestContext, Response, register, response_class
from kadmin.testing.handlers.records_common import find_partition
from kadmin.testing.state.topics import Topics
from kadmin.testing.state.transactions import expire

API_KEY = ApiKey.DESCRIBE_PRODUCERS


def handle(ctx: RequestContext, req: Any, version: int) -> Response:
    R = response_class(API_KEY)
    expire(ctx.state)
    live = ctx.live_ids()
    out = []
    for t in req.topics:
        topic = ctx.state.area(Topics).get(t.name)
        parts = []
        for index in t.partition_indexes:
            found = find_partition(ctx, topic, t.name, index, az.READ, live)
            pr = R.PartitionResponse(partition_index=index, error_code=found.code, error_message=None,
                                     active_producers=[])
            if found.code == ErrorCode.NONE:
                assert found.part is not None
                part = found.part
                producer_state.forget_gone(part.log.producers, part.log_start, part.log_end, True)
                pr.active_producers = [
                    R.ProducerState(producer_id=pid, producer_epoch=e.epoch, last_sequence=e.last_seq,
                                    last_timestamp=e.last_timestamp, coordinator_epoch=e.coordinator_epoch,
                                    current_txn_start_offset=-1 if e.txn_start is None else e.txn_start)
                    for pid, e in sorted(part.log.producers.items())]
            parts.append(pr)
        out.append(R.TopicResponse(name=t.name, partitions=parts))
    return R(throttle_time_ms=0, topics=out)


def error_response(ctx: RequestContext, req: Any, version: int, code: int) -> Response:
    R = response_class(API_KEY)
    return R(throttle_time_ms=0, topics=[R.TopicResponse(name=t.name, partitions=[
        R.PartitionResponse(partition_index=i, error_code=code, error_message=None, active_producers=[])
        for i in t.partition_indexes]) for t in req.topics])


def keys(req: Any, version: int) -> tuple[str, ...]:
    return tuple(f"{t.name}-{i}" for t in req.topics for i in t.partition_indexes)


register(API_KEY, handle=handle, error_response=error_response, keys=keys)

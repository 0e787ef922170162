"""kadmin against brokers it did not write: Tansu and librdkafka's mock cluster."""

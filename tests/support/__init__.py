"""Helpers shared by the test layers: real peers, a hostile broker, proxies, Hypothesis strategies, TLS and
SASL servers, consumer groups of real consumers, the reference-schema switch, the CLI runners, the shared
client settings and module-scoped clusters."""

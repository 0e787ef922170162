"""kadmin.network: connections, pipelining, negotiation, SASL, TLS, client configuration and bootstrap."""

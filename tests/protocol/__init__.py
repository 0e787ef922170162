"""The codec, the message schemas, the error-code and release tables."""

"""TLS contexts built from the client config.

Hostname verification is on by default because a TLS connection that does not check who answered only
protects against passive eavesdroppers; turning it off must be an explicit choice
(``ssl_check_hostname=False``, or ``ssl.endpoint.identification.algorithm=`` in a properties file).
"""

from __future__ import annotations

import ssl

from kadmin.config import ClientConfig


def build_ssl_context(config: ClientConfig) -> ssl.SSLContext | None:
    """The context for every connection of a client; None for PLAINTEXT and SASL_PLAINTEXT.

    A user-supplied ``ssl_context`` is used as given (the user owns its settings).  Otherwise the system trust
    store is used unless ``ssl_cafile`` names a CA bundle.  Errors name the file but never the key password.
    """
    if not config.uses_ssl:
        return None
    if config.ssl_context is not None:
        return config.ssl_context
    try:
        ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=config.ssl_cafile)
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(f"cannot load the CA file {config.ssl_cafile!r}: {_reason(exc)}") from None
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.check_hostname = config.ssl_check_hostname
    ctx.verify_mode = ssl.CERT_REQUIRED
    if config.ssl_certfile:
        try:
            ctx.load_cert_chain(config.ssl_certfile, config.ssl_keyfile, password=config.ssl_password)
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(f"cannot load the client certificate {config.ssl_certfile!r} / key "
                             f"{config.ssl_keyfile!r}: {_reason(exc)}") from None
    return ctx


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLError) and exc.reason:
        return str(exc.reason)
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return type(exc).__name__


__all__ = ["build_ssl_context"]

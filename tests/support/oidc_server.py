"""A real OIDC token endpoint for tests: HTTP on 127.0.0.1 (a free port), RS256 tokens signed with joserfc.

``POST /token`` is the client-credentials grant (client id and secret in HTTP Basic, or in the form, as
RFC 6749 allows both); ``GET /jwks`` the public key set a broker validates with.  ``lifetime_s``,
``audience`` and ``issuer`` shape the tokens issued from then on; ``fail_next`` answers that many token
requests with HTTP 503 first; ``requests`` counts token requests; ``issued`` holds each token's claims and
``tokens`` the tokens themselves (the compact JWS, for tests that look for them where they must not be);
``tls`` (a server SSLContext) serves HTTPS.
"""

from __future__ import annotations

import base64
import json
import ssl
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey


class OidcServer:
    def __init__(self, clients: dict[str, str], *, lifetime_s: float = 3600.0, audience: str = "kafka",
                 issuer: str | None = None, tls: ssl.SSLContext | None = None) -> None:
        self.clients = dict(clients)
        self.lifetime_s = lifetime_s
        self.audience = audience
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
        self.fail_next = 0
        self.requests = 0
        self.issued: list[dict[str, Any]] = []
        self.tokens: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet: pytest shows stderr of failures
                pass

            def _send(self, code: int, doc: Any) -> None:
                body = json.dumps(doc).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                if self.path.startswith("/jwks"):
                    self._send(200, KeySet([owner.key]).as_dict(private=False))
                else:
                    self._send(404, {"error": "not_found"})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                with owner.lock:
                    owner.requests += 1
                    fail = owner.fail_next > 0
                    if fail:
                        owner.fail_next -= 1
                if fail:
                    self._send(503, {"error": "temporarily_unavailable"})
                    return
                cid, secret = form.get("client_id"), form.get("client_secret")
                auth = self.headers.get("Authorization", "")
                if auth.startswith("Basic "):
                    pair = base64.b64decode(auth[6:]).decode()
                    cid, _, secret = (urllib.parse.unquote(p) for p in pair.partition(":"))
                if form.get("grant_type") != "client_credentials":
                    self._send(400, {"error": "unsupported_grant_type"})
                    return
                if cid is None or owner.clients.get(cid) != secret:
                    self._send(401, {"error": "invalid_client", "error_description": "bad client credentials"})
                    return
                self._send(200, owner.issue(cid, form.get("scope")))

        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.scheme = "https" if tls is not None else "http"
        self.port = self.httpd.server_address[1]
        self.issuer = issuer or f"{self.scheme}://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="oidc-server", daemon=True)
        self._thread.start()

    @property
    def token_url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/token"

    @property
    def jwks_url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/jwks"

    @property
    def jwks(self) -> dict[str, Any]:
        return dict(KeySet([self.key]).as_dict(private=False))

    def issue(self, subject: str, scope: str | None = None, *, lifetime_s: float | None = None,
              audience: str | None = None) -> dict[str, Any]:
        now = int(time.time())
        life = self.lifetime_s if lifetime_s is None else lifetime_s
        claims: dict[str, Any] = {"iss": self.issuer, "sub": subject, "aud": audience or self.audience,
                                  "iat": now, "exp": now + life, "jti": f"t{len(self.issued)}"}
        if scope:
            claims["scope"] = scope
        token = jwt.encode({"alg": "RS256", "kid": "test-key"}, claims, self.key)
        self.issued.append(claims)
        self.tokens.append(token)
        return {"access_token": token, "token_type": "Bearer", "expires_in": life}

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> OidcServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

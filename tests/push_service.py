"""A local stand-in for a Web Push service (RFC 8030), for the tests.

It listens on 127.0.0.1, takes the site's POSTs like a real push service, checks the VAPID JWT
(RFC 8292: ES256 signature by the key in ``k``, audience, expiry, subject) and decrypts the
payload (RFC 8291, aes128gcm) with the private key of the test subscription it made, as the
browser would. Each subscription can be told to answer with another status (404 and 410: the
subscription is gone; 500: try later).
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Subscription:
    """A browser's subscription: the endpoint and the keys the site encrypts to."""

    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    answer: int = 201

    @property
    def p256dh(self) -> str:
        raw = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(raw)

    def json(self) -> dict:
        """What the browser's ``PushSubscription.toJSON()`` gives the page."""
        return {
            "endpoint": self.endpoint,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
        }


@dataclass
class Received:
    endpoint: str
    headers: dict
    claims: dict
    vapid_key: str
    payload: dict | None
    problems: list[str] = field(default_factory=list)


class PushService:
    def __init__(self):
        self.subscriptions: dict[str, Subscription] = {}
        self.received: list[Received] = []
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the standard library's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}  # names are case-blind
                status = service._receive(self.path, headers, body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def subscribe(self, answer: int = 201) -> Subscription:
        """A new subscription, as a browser would make it (its own key pair and secret)."""
        name = b64url(os.urandom(12))
        sub = Subscription(
            endpoint=f"{self.origin}/push/{name}",
            private_key=ec.generate_private_key(ec.SECP256R1()),
            auth=os.urandom(16),
            answer=answer,
        )
        self.subscriptions[sub.endpoint] = sub
        return sub

    def to(self, sub: Subscription) -> list[Received]:
        return [r for r in self.received if r.endpoint == sub.endpoint]

    def _receive(self, path: str, headers: dict, body: bytes) -> int:
        endpoint = self.origin + path
        sub = self.subscriptions.get(endpoint)
        if sub is None:
            return 404
        problems: list[str] = []
        claims, key = self._check_vapid(headers, problems)
        payload = None
        if headers.get("content-encoding") != "aes128gcm":
            problems.append(f"content encoding {headers.get('content-encoding')!r}")
        else:
            try:
                plain = http_ece.decrypt(
                    body, private_key=sub.private_key, auth_secret=sub.auth, version="aes128gcm"
                )
                payload = json.loads(plain)
            except Exception as error:  # noqa: BLE001 - recorded for the test to show
                problems.append(f"cannot decrypt: {error!r}")
        if not headers.get("ttl", "").isdigit():
            problems.append("no TTL header")
        with self.lock:
            self.received.append(Received(endpoint, headers, claims, key, payload, problems))
        return sub.answer

    def _check_vapid(self, headers: dict, problems: list[str]) -> tuple[dict, str]:
        auth = headers.get("authorization", "")
        if not auth.startswith("vapid "):
            problems.append(f"no VAPID authorization: {auth!r}")
            return {}, ""
        parts = dict(p.strip().split("=", 1) for p in auth[len("vapid ") :].split(","))
        token, key = parts.get("t", ""), parts.get("k", "")
        try:
            head, claims_part, signature = token.split(".")
            header = json.loads(unb64url(head))
            claims = json.loads(unb64url(claims_part))
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
            raw = unb64url(signature)
            der = encode_dss_signature(
                int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
            )
            public.verify(der, f"{head}.{claims_part}".encode(), ec.ECDSA(hashes.SHA256()))
        except (ValueError, InvalidSignature) as error:
            problems.append(f"bad VAPID token: {error!r}")
            return {}, key
        if header.get("alg") != "ES256":
            problems.append(f"JWT algorithm {header.get('alg')!r}")
        if claims.get("aud") != self.origin:
            problems.append(f"audience {claims.get('aud')!r}")
        if not time.time() < claims.get("exp", 0) <= time.time() + 24 * 3600:
            problems.append(f"expiry {claims.get('exp')!r}")
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            problems.append(f"subject {claims.get('sub')!r}")
        return claims, key

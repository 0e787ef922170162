"""Certificates made at test time: a private CA, server certificates for chosen names, client certificates.

Nothing is checked in: keys in a repository get copied into places they should not be, and expired test
certificates break builds years later.  The ``cryptography`` package is used when it is installed (fast, no
subprocess); otherwise the ``openssl`` command line does the same job, so the TLS tests run either way.
"""

from __future__ import annotations

import datetime
import ipaddress
import shutil
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path

try:  # pragma: no cover - depends on the environment
    import cryptography  # noqa: F401

    HAVE_CRYPTOGRAPHY = True
except ImportError:  # pragma: no cover
    HAVE_CRYPTOGRAPHY = False


@dataclass(frozen=True)
class CertPair:
    cert: Path
    key: Path
    key_password: str | None = None


@dataclass(frozen=True)
class TestPKI:
    """A CA plus the files signed by it, all under ``folder``."""

    folder: Path
    ca: CertPair

    def server_context(self, server: CertPair, *, require_client_cert: bool = False) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(server.cert, server.key, password=server.key_password)
        if require_client_cert:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(cafile=str(self.ca.cert))
        return ctx


def _san_entries(names: list[str]) -> list[tuple[str, str]]:
    out = []
    for n in names:
        try:
            ipaddress.ip_address(n)
            out.append(("IP", n))
        except ValueError:
            out.append(("DNS", n))
    return out


# --------------------------------------------------------------------------------------------- cryptography


def _crypto_ca(folder: Path, name: str) -> CertPair:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    pair = CertPair(folder / f"{name}.crt", folder / f"{name}.key")
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return pair


def _crypto_leaf(folder: Path, ca: CertPair, name: str, sans: list[str], *, client: bool,
                 key_password: str | None) -> CertPair:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    ca_key = serialization.load_pem_private_key(ca.key.read_bytes(), password=None)
    ca_cert = x509.load_pem_x509_certificate(ca.cert.read_bytes())
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    alt: list[x509.GeneralName] = []
    for kind, value in _san_entries(sans):
        alt.append(x509.IPAddress(ipaddress.ip_address(value)) if kind == "IP" else x509.DNSName(value))
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH if client
                                              else ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_cert.public_key()),  # type: ignore[arg-type]
            critical=False)
    )
    if alt:
        builder = builder.add_extension(x509.SubjectAlternativeName(alt), critical=False)
    cert = builder.sign(ca_key, hashes.SHA256())  # type: ignore[arg-type]
    enc: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(key_password.encode()) if key_password
        else serialization.NoEncryption())
    pair = CertPair(folder / f"{name}.crt", folder / f"{name}.key", key_password)
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, enc))
    return pair


# --------------------------------------------------------------------------------------------- openssl CLI


def _openssl(*args: str, cwd: Path) -> None:
    exe = shutil.which("openssl")
    if exe is None:
        raise RuntimeError("neither the cryptography package nor the openssl command is available")
    subprocess.run([exe, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _openssl_ca(folder: Path, name: str) -> CertPair:
    pair = CertPair(folder / f"{name}.crt", folder / f"{name}.key")
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", str(pair.key), "-out", str(pair.cert), "-days", "2", "-subj", f"/CN={name}",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             cwd=folder)
    return pair


def _openssl_leaf(folder: Path, ca: CertPair, name: str, sans: list[str], *, client: bool,
                  key_password: str | None) -> CertPair:
    pair = CertPair(folder / f"{name}.crt", folder / f"{name}.key", key_password)
    csr = folder / f"{name}.csr"
    ext = folder / f"{name}.ext"
    lines = ["basicConstraints=critical,CA:FALSE",
             f"extendedKeyUsage={'clientAuth' if client else 'serverAuth'}"]
    if sans:
        lines.append("subjectAltName=" + ",".join(f"{k}:{v}" for k, v in _san_entries(sans)))
    ext.write_text("\n".join(lines) + "\n")
    key_args = ["-nodes"] if not key_password else ["-passout", f"pass:{key_password}"]
    _openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", *key_args,
             "-keyout", str(pair.key), "-out", str(csr), "-subj", f"/CN={name}", cwd=folder)
    _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca.cert), "-CAkey", str(ca.key), "-CAcreateserial",
             "-out", str(pair.cert), "-days", "1", "-extfile", str(ext), cwd=folder)
    return pair


# --------------------------------------------------------------------------------------------- entry points


def make_ca(folder: Path, name: str = "kadmin-test-ca", *, use_openssl: bool = False) -> TestPKI:
    folder.mkdir(parents=True, exist_ok=True)
    openssl = use_openssl or not HAVE_CRYPTOGRAPHY
    ca = _openssl_ca(folder, name) if openssl else _crypto_ca(folder, name)
    return TestPKI(folder, ca)


def make_cert(pki: TestPKI, name: str, sans: list[str], *, client: bool = False,
              key_password: str | None = None, use_openssl: bool = False) -> CertPair:
    """A leaf certificate for ``sans`` (DNS names or IP literals) signed by ``pki``'s CA."""
    openssl = use_openssl or not HAVE_CRYPTOGRAPHY
    make = _openssl_leaf if openssl else _crypto_leaf
    return make(pki.folder, pki.ca, name, sans, client=client, key_password=key_password)

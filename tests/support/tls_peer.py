#!/usr/bin/env python3
"""TLS peers for tests/unit/tls.tcl: the faults a server must survive and
redis-py with ssl. Usage: tls_peer.py MODE PORT CERTDIR [ARGS...]; prints one
result line."""
import os
import socket
import ssl
import struct
import sys
import time


def context(certdir, cert="client"):
    ctx = ssl.create_default_context(cafile=os.path.join(certdir, "ca.crt"))
    ctx.check_hostname = False
    if cert:
        ctx.load_cert_chain(os.path.join(certdir, cert + ".crt"),
                            os.path.join(certdir, cert + ".key"))
    return ctx


def tls_connect(port, certdir, cert="client", **kw):
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    return context(certdir, cert, **kw).wrap_socket(raw)


def read_reply_line(s):
    buf = b""
    while not buf.endswith(b"\r\n"):
        chunk = s.recv(1)
        if not chunk:
            break
        buf += chunk
    return buf.decode(errors="replace").strip()


def mode_hang(port, certdir):
    """Connects and never starts the handshake: how long until the server
    closes the connection (ms)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    t0 = time.time()
    try:
        data = s.recv(1)
    except ConnectionResetError:
        data = b""
    print("closed after %d ms%s" % ((time.time() - t0) * 1000, "" if not data else " (data)"))


def mode_plain(port, certdir):
    """A plain-text client on the TLS port."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"PING\r\n")
    try:
        data = s.recv(100)
    except ConnectionResetError:
        data = b""
    # The server answers with a TLS alert record (type 21) or just closes.
    print("refused" if (not data or data[0] == 21) else "answered %r" % data)


def mode_tls_on_plain(port, certdir):
    """A TLS client on the plain-text port."""
    try:
        s = tls_connect(port, certdir)
        s.sendall(b"PING\r\n")
        print("connected %r" % s.recv(100))
    except (ssl.SSLError, OSError) as e:
        print("handshake failed: %s" % type(e).__name__)


def mode_handshake(port, certdir, cert):
    """A handshake with the given client certificate ("none": without one),
    then PING."""
    try:
        s = tls_connect(port, certdir, None if cert == "none" else cert)
        s.sendall(b"PING\r\n")
        line = read_reply_line(s)
        print(line.lstrip("+") if line else "closed")
    except (ssl.SSLError, OSError) as e:
        print("refused: %s" % type(e).__name__)


def mode_vanish(port, certdir, key):
    """Asks for a large value, takes a few bytes of it and resets the
    connection in the middle of the reply."""
    s = tls_connect(port, certdir)
    s.sendall(b"GET %s\r\n" % key.encode())
    got = s.recv(4096)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    print("vanished after %d bytes" % len(got))


def mode_halfclose(port, certdir):
    """Sends half a TLS record then closes its side."""
    s = tls_connect(port, certdir)
    # A record header announcing 100 bytes, followed by 10 of them, written
    # under the TLS layer.
    raw_sock = socket.socket(fileno=os.dup(s.fileno()))
    raw_sock.sendall(b"\x17\x03\x03\x00\x64" + b"x" * 10)
    raw_sock.shutdown(socket.SHUT_WR)
    # Whatever the server still sends (TLSv1.3 session tickets, an alert),
    # it must end the connection.
    raw_sock.settimeout(5)
    try:
        while raw_sock.recv(4096):
            pass
        print("closed by server")
    except socket.timeout:
        print("still open")
    except OSError:
        print("closed by server")


def mode_peercn(port, certdir):
    """The common name of the certificate the server presents."""
    s = tls_connect(port, certdir)
    cert = s.getpeercert()
    cn = [v for rdn in cert["subject"] for (k, v) in rdn if k == "commonName"]
    print(cn[0])


def mode_cipher(port, certdir, version="any", ciphers=""):
    """Negotiated protocol and cipher, the client limited to `version`
    (TLSv1.2, TLSv1.3 or any) and offering `ciphers` (OpenSSL list) first."""
    ctx = context(certdir)
    if version == "TLSv1.2":
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    elif version == "TLSv1.3":
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    if ciphers:
        ctx.set_ciphers(ciphers)
    try:
        raw = socket.create_connection(("127.0.0.1", port), timeout=10)
        s = ctx.wrap_socket(raw)
        s.sendall(b"PING\r\n")
        line = read_reply_line(s)
        print("%s %s %s" % (s.version(), s.cipher()[0], line.lstrip("+")))
    except (ssl.SSLError, OSError) as e:
        print("refused: %s" % type(e).__name__)


def mode_resume(port, certdir):
    """Whether a second TLSv1.2 connection resumes the first one's session."""
    ctx = context(certdir)
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    s1 = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10))
    s1.sendall(b"PING\r\n")
    read_reply_line(s1)
    sess = s1.session
    s1.close()
    s2 = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10),
                         session=sess)
    s2.sendall(b"PING\r\n")
    line = read_reply_line(s2)
    print("%s %s" % ("reused" if s2.session_reused else "not reused", line.lstrip("+")))


def mode_redispy(port, certdir, size):
    import redis
    d = certdir
    r = redis.Redis(host="127.0.0.1", port=port, ssl=True,
                    ssl_ca_certs=os.path.join(d, "ca.crt"),
                    ssl_certfile=os.path.join(d, "client.crt"),
                    ssl_keyfile=os.path.join(d, "client.key"))
    assert r.ping()
    r.set("py:k", "v")
    assert r.get("py:k") == b"v"
    p = r.pipeline(transaction=False)
    for i in range(1000):
        p.set("py:%d" % i, i)
    p.execute()
    p = r.pipeline(transaction=False)
    for i in range(1000):
        p.get("py:%d" % i)
    assert p.execute() == [str(i).encode() for i in range(1000)]
    big = os.urandom(int(size))
    r.set("py:big", big)
    assert r.get("py:big") == big
    with r.pubsub() as ps:
        ps.subscribe("py:chan")
        ps.get_message(timeout=1)
        r.publish("py:chan", "hello")
        msg = ps.get_message(timeout=2)
        assert msg and msg["data"] == b"hello", msg
    print("redis-py over TLS: OK")


def main():
    mode, port, certdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    extra = sys.argv[4:]
    {
        "hang": mode_hang,
        "plain": mode_plain,
        "tls-on-plain": mode_tls_on_plain,
        "handshake": mode_handshake,
        "vanish": mode_vanish,
        "halfclose": mode_halfclose,
        "redispy": mode_redispy,
        "peercn": mode_peercn,
        "cipher": mode_cipher,
        "resume": mode_resume,
    }[mode](port, certdir, *extra)


if __name__ == "__main__":
    main()

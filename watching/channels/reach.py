"""Where alert targets may point: public addresses only, unless an administrator names the host or
network in DQ_ALERT_ALLOWED_HOSTS.

A target is sent from inside the platform's network, and a test message shows what the target
answered; a webhook on `http://169.254.169.254/` or `http://10.0.0.5:8080/admin` would make the
platform a way into places its users cannot reach. So loopback, link-local (cloud metadata
included), private, unspecified, multicast and other non-public addresses are refused:

- when a channel is saved (`check_url_host`): literal addresses in every spelling the resolver
  accepts (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, IPv6, IPv4-mapped IPv6) and the
  addresses a host name resolves to;
- when a message is sent (`guarded_connections`): every name resolution made while sending is
  filtered, so the connection goes to an address that was checked at that moment (a name that
  resolved to a public address at save time and to 10.0.0.5 now is refused now).

The platform's own SMTP server (EMAIL_URL, set by the operator) is not a user's target and is
always allowed.
"""

from __future__ import annotations

import contextlib
import contextvars
import ipaddress
import socket
import threading
from collections.abc import Iterable, Iterator
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# Link-local already covers 169.254.169.254; these are the other clouds' metadata services.
METADATA = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("169.254.170.2"),
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("100.100.100.200"),
    ipaddress.ip_address("192.0.0.192"),
}
RULE = "alert targets must be public addresses unless an administrator lists the host in DQ_ALERT_ALLOWED_HOSTS"


class Refused(ValueError):
    """The target points at an address it may not reach; the message says which and why."""


# --- the allow-list ------------------------------------------------------------------------------
def parse_allowed(entries: Iterable[str]) -> tuple[frozenset[str], tuple[Network, ...]]:
    """DQ_ALERT_ALLOWED_HOSTS' entries → (host names, networks); ValueError naming a bad entry."""
    names, networks = set(), []
    for entry in (e.strip() for e in entries):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            continue
        except ValueError:
            pass
        if "/" in entry or not entry.replace("-", "").replace(".", "").replace("_", "").isalnum():
            raise ValueError(
                _("%(entry)s is neither a host name nor an address or network (CIDR)") % {"entry": repr(entry)}
            )
        names.add(entry.lower().rstrip("."))
    return frozenset(names), tuple(networks)


def _allowed() -> tuple[frozenset[str], tuple[Network, ...]]:
    return parse_allowed(getattr(settings, "DQ_ALERT_ALLOWED_HOSTS", ()))


def _host_allowed(host: str, extra: frozenset[str] = frozenset()) -> bool:
    name = host.lower().strip("[]").rstrip(".")
    names, _networks = _allowed()
    return name in names or name in extra


def _address_allowed(address: Address) -> bool:
    _names, networks = _allowed()
    plain = _unmapped(address)
    return any(plain in network or address in network for network in networks)


# --- addresses -----------------------------------------------------------------------------------
def literal_address(host: str) -> Address | None:
    """The address a host written as an address names, in any spelling the resolver accepts."""
    text = host.strip().strip("[]").split("%", 1)[0]
    if not text:
        return None
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if all(part for part in text.split(".")) and all(c in "0123456789abcdefxABCDEFX." for c in text):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text))  # 2130706433, 0177.1, 0x7f.0.0.1
        except OSError:
            return None
    return None


def refusal(address: Address) -> str | None:
    """Why an address may not be a target, or None for a public one."""
    address = _unmapped(address)
    if address in METADATA:
        return "a cloud metadata address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_private:
        return "a private address"
    if not address.is_global:
        return "a reserved (non-public) address"
    return None


def _unmapped(address: Address) -> Address:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def check_address(host: str, address: Address) -> None:
    reason = refusal(address)
    if reason and not _address_allowed(address):
        shown = host if host == str(address) else f"{host} ({address})"
        raise Refused(
            _("The target's host %(shown)s is %(reason)s; %(rule)s.") % {"shown": shown, "reason": reason, "rule": RULE}
        )


def check_host(host: str, resolve: bool = True) -> None:
    """Refused when `host` is, or resolves to, an address a target may not reach. A name that does
    not resolve now passes here: it is checked again, resolved, when a message is sent."""
    if not host or _host_allowed(host):
        return
    literal = literal_address(host)
    if literal is not None:
        check_address(host, literal)
        return
    if host.lower().rstrip(".") == "localhost" or host.lower().endswith(".localhost"):
        raise Refused(_("The target's host %(host)s is a loopback address; %(rule)s.") % {"host": host, "rule": RULE})
    if not resolve:
        return
    try:
        found = _real_getaddrinfo(host, None, 0, socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return
    for *_rest, sockaddr in found:
        check_address(host, ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0]))


def check_url_host(url: str) -> None:
    """check_host for a URL's host; a URL whose host part cannot be read is Refused too."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 — reading it validates it (ValueError for 99999 or `:x`)
    except ValueError as exc:
        raise Refused(_("The target URL's host or port cannot be read (%(exc)s).") % {"exc": exc}) from None
    check_host(host)


# --- at send time ---------------------------------------------------------------------------------
_real_getaddrinfo = socket.getaddrinfo
_extra_hosts: contextvars.ContextVar[frozenset[str] | None] = contextvars.ContextVar("dq_alert_guard", default=None)
_install_lock = threading.Lock()


class RefusedAddress(socket.gaierror):
    """Raised by name resolution inside `guarded_connections` for a host with no allowed address."""


def _guarded_getaddrinfo(host, port, *args, **kwargs):
    found = _real_getaddrinfo(host, port, *args, **kwargs)
    extra = _extra_hosts.get()
    if extra is None or host is None:
        return found
    name = host.decode() if isinstance(host, bytes) else str(host)
    if _host_allowed(name, extra):
        return found
    kept, reasons = [], []
    for entry in found:
        address = ipaddress.ip_address(str(entry[4][0]).split("%", 1)[0])
        try:
            check_address(name, address)
        except Refused as exc:
            reasons.append(str(exc))
            continue
        kept.append(entry)
    if not kept:
        raise RefusedAddress(socket.EAI_NONAME, reasons[0] if reasons else f"{name} has no address")
    return kept


def _install() -> None:
    with _install_lock:
        if socket.getaddrinfo is not _guarded_getaddrinfo:
            socket.getaddrinfo = _guarded_getaddrinfo


@contextlib.contextmanager
def guarded_connections(also_allowed: Iterable[str] = ()) -> Iterator[None]:
    """While sending: every host name resolved in this thread (requests, Apprise, smtplib all
    resolve through socket.getaddrinfo) keeps only the addresses a target may reach; the
    connection then goes to one of those. `also_allowed`: hosts the operator configured."""
    _install()
    token = _extra_hosts.set(frozenset(h.lower() for h in also_allowed if h))
    try:
        yield
    finally:
        _extra_hosts.reset(token)

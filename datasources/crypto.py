"""Encryption of datasource secrets at rest (Fernet, with key rotation).

`settings.DQ_FERNET_KEYS`: the first key encrypts, every key decrypts. Rotation: put a new key
first, run `manage.py rotate_secrets`, then drop the old key.
"""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


class SecretDecryptionError(Exception):
    """The ciphertext was made with a key that is no longer in DQ_FERNET_KEYS."""


def _fernet() -> MultiFernet:
    return MultiFernet([Fernet(key.encode()) for key in settings.DQ_FERNET_KEYS])


def encrypt(plaintext: str) -> str:
    return _fernet().encrypt(plaintext.encode()).decode()


def decrypt(ciphertext: str) -> str:
    try:
        return _fernet().decrypt(ciphertext.encode()).decode()
    except InvalidToken:
        raise SecretDecryptionError(
            "A stored secret cannot be decrypted with any key in DQ_FERNET_KEYS; "
            "add back the key it was encrypted with."
        ) from None


def rotate(ciphertext: str) -> str:
    """Re-encrypt under the first key (raises SecretDecryptionError if no key fits)."""
    try:
        return _fernet().rotate(ciphertext.encode()).decode()
    except InvalidToken:
        raise SecretDecryptionError("A stored secret cannot be decrypted with any key in DQ_FERNET_KEYS.") from None

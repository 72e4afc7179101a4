from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from datasources import crypto
from datasources.models import Datasource


class Command(BaseCommand):
    help = "Re-encrypt every stored datasource secret under the first key of DQ_FERNET_KEYS."

    def handle(self, *args, **options):
        rotated = 0
        with transaction.atomic():
            for datasource in Datasource.objects.exclude(password_ciphertext="").select_for_update():
                try:
                    datasource.password_ciphertext = crypto.rotate(datasource.password_ciphertext)
                except crypto.SecretDecryptionError as exc:
                    raise CommandError(f"Datasource {datasource.name!r}: {exc}") from None
                datasource.save(update_fields=["password_ciphertext"])
                rotated += 1
        self.stdout.write(f"Re-encrypted {rotated} datasource secret(s) under the first key.")

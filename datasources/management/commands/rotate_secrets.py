from django.apps import apps
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from datasources import crypto
from datasources.models import Datasource


class Command(BaseCommand):
    help = "Re-encrypt every stored secret (datasource passwords, alert channel targets, integration tokens) under the first key of DQ_FERNET_KEYS."

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
            # Alert channel targets (watching/) hold tokens too; looked up by name, so datasources
            # does not import the app that builds on it.
            for channel in apps.get_model("watching", "AlertChannel").objects.select_for_update():
                try:
                    channel.target_ciphertext = crypto.rotate(channel.target_ciphertext)
                except crypto.SecretDecryptionError as exc:
                    raise CommandError(f"Alert channel {channel.name!r}: {exc}") from None
                channel.save(update_fields=["target_ciphertext"])
                rotated += 1
            for integration in (
                apps.get_model("integrations", "Integration").objects.exclude(secret_ciphertext="").select_for_update()
            ):
                try:
                    integration.secret_ciphertext = crypto.rotate(integration.secret_ciphertext)
                except crypto.SecretDecryptionError as exc:
                    raise CommandError(f"Integration {integration.name!r}: {exc}") from None
                integration.save(update_fields=["secret_ciphertext"])
                rotated += 1
        self.stdout.write(f"Re-encrypted {rotated} secret(s) under the first key.")

"""The embedded broker (`make run`): kombu's filesystem transport, with messages that appear in
the queue folder only once they are whole.

kombu's own `_put` creates the message file under its final name and then writes it; a worker
polling the folder can take the file in between, read nothing, fail to decode it and stop, and
the message is gone with the file it removed. Here a message is written under a name no reader
takes (`….msg.part`) and then renamed to its final name, which is atomic within one filesystem.
Selected by settings (CELERY_BROKER_TRANSPORT) whenever CELERY_BROKER_URL is `filesystem://`.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

PARTIAL = ".part"


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put `payload` onto `queue`: written in full, then renamed into the readers' view."""
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + PARTIAL
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel

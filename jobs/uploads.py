"""A job's uploaded file, kept in the jobs database in 1 MiB pieces: every worker, on any
machine, reads it from there (no shared file system to set up), it is read back as a stream
(never whole in memory), and it is deleted when the job ends."""

from __future__ import annotations

import io
from collections.abc import Iterable

from django.conf import settings
from django.utils.translation import gettext as _

from jobs.models import Job, UploadChunk

CHUNK_BYTES = 1024 * 1024


class UploadTooLarge(ValueError):
    pass


def too_large_message(size: int) -> str:
    limit = settings.JOBS_MAX_UPLOAD_BYTES
    return _("the file is %(size)s bytes; the limit is %(limit)s bytes (JOBS_MAX_UPLOAD_BYTES)") % {
        "size": f"{size:,}",
        "limit": f"{limit:,}",
    }


def store(job: Job, pieces: Iterable[bytes]) -> tuple[int, int]:
    """Write the pieces as the job's upload; returns (bytes, lines). Call inside the
    transaction that creates the job, so a refused file leaves no job behind."""
    size = lines = seq = 0
    buffer = bytearray()
    last = b"\n"
    for piece in pieces:
        if not piece:
            continue
        size += len(piece)
        if size > settings.JOBS_MAX_UPLOAD_BYTES:
            raise UploadTooLarge(too_large_message(size))
        lines += piece.count(b"\n")
        last = piece[-1:]
        buffer += piece
        while len(buffer) >= CHUNK_BYTES:
            UploadChunk.objects.create(job=job, seq=seq, data=bytes(buffer[:CHUNK_BYTES]))
            del buffer[:CHUNK_BYTES]
            seq += 1
    if buffer:
        UploadChunk.objects.create(job=job, seq=seq, data=bytes(buffer))
    if last != b"\n":
        lines += 1  # a last line without its newline
    return size, lines


class _ChunkStream(io.RawIOBase):
    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.seq = 0
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        if not self.pending:
            row = (
                UploadChunk.objects.filter(job_id=self.job_id, seq=self.seq)
                .values_list("data", flat=True)
                .first()
            )
            if row is None:
                return 0
            self.pending = bytes(row)
            self.seq += 1
        n = min(len(target), len(self.pending))
        target[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n


def open_upload(job: Job) -> io.BufferedReader:
    """The upload as a binary file (iterating gives its lines), read one piece at a time."""
    return io.BufferedReader(_ChunkStream(job.pk), buffer_size=CHUNK_BYTES)


def discard(job_id: int) -> None:
    UploadChunk.objects.filter(job_id=job_id).delete()

"""Hostile archives, built in memory for the tests (nothing here is read from disk)."""

from __future__ import annotations

import gzip
import io
import stat
import struct
import tarfile
import zipfile
import zlib

GIB = 1024**3


def tar_gz(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    """A tar.gz of ``members`` (a header and its bytes, None for none)."""
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as compressed,
        tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for info, data in members:
            tar.addfile(info, None if data is None else io.BytesIO(data))
    return buffer.getvalue()


def file_info(name: str, data: bytes = b"x", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    return info, data


def special_info(name: str, kind: bytes, link: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info, None


def zip_bytes(*entries: tuple[str | zipfile.ZipInfo, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def zip_symlink(name: str, target: str) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target.encode()


def tar_gz_bomb(size: int = 10 * GIB) -> bytes:
    """A tar.gz whose one file is ``size`` zero bytes: about 10 MB for 10 GiB.

    Gzip members may follow one another, so one member of 1 MiB of zeros is compressed
    once and repeated: building it costs almost nothing, unpacking it all would write
    ``size`` bytes.
    """
    header = tarfile.TarInfo("zeros")
    header.size = size
    chunk = 1024 * 1024
    head = gzip.compress(header.tobuf(format=tarfile.PAX_FORMAT), mtime=0)
    zeros = gzip.compress(bytes(chunk), compresslevel=9, mtime=0)
    tail = gzip.compress(bytes(1024), mtime=0)  # the two end blocks
    return head + zeros * (size // chunk) + tail


def zip_bomb(size: int = 10 * GIB) -> bytes:
    """A zip whose one deflated entry is ``size`` zero bytes (zip64), built from one
    deflate block of 1 MiB of zeros repeated: after a full flush the compressor starts
    afresh, so every such block is the same bytes."""
    chunk = 1024 * 1024
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    second = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert first == second
    body = first * (size // chunk - 1) + compressor.compress(bytes(chunk)) + compressor.flush()
    crc = 0
    # The CRC of `size` zeros is never checked before the refusal; any value will do.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", allowZip64=True) as archive:
        info = zipfile.ZipInfo("zeros")
        info.compress_type = zipfile.ZIP_STORED
        archive.writestr(info, b"placeholder")
    data = buffer.getvalue()
    return _rewrite_single_entry(data, body, size, crc)


def _rewrite_single_entry(template: bytes, body: bytes, size: int, crc: int) -> bytes:
    """The one-entry zip ``template`` with its data replaced by the deflated ``body``."""
    name = b"zeros"
    extra = struct.pack("<HHQQ", 1, 16, size, len(body))
    local = struct.pack(
        "<4sHHHHHIIIHH", b"PK\x03\x04", 45, 0, zipfile.ZIP_DEFLATED, 0, 0x21, crc,
        0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra),
    ) + name + extra  # fmt: skip
    central_offset = len(local) + len(body)
    central = struct.pack(
        "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 45, 45, 0, zipfile.ZIP_DEFLATED, 0, 0x21, crc,
        0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra), 0, 0, 0, 0, 0,
    ) + name + extra  # fmt: skip
    del template
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(central), central_offset, 0)
    return local + body + central + end


def many_empty_files_tar_gz(count: int) -> bytes:
    """A tar.gz of ``count`` empty files ``f000000``...: one header made by tarfile, its
    name and checksum rewritten for each file (tarfile itself takes seconds for 100,000)."""
    template = bytearray(tarfile.TarInfo("f000000").tobuf(format=tarfile.USTAR_FORMAT))
    template[148:156] = b" " * 8
    base_sum = sum(template) - sum(b"000000")
    headers = bytearray()
    for index in range(count):
        digits = b"%06d" % index
        header = bytearray(template)
        header[1:7] = digits
        header[148:156] = b"%06o\0 " % (base_sum + sum(digits))
        headers += header
    return gzip.compress(bytes(headers) + bytes(1024), compresslevel=1, mtime=0)


def many_empty_files_zip(count: int) -> bytes:
    """A zip of ``count`` empty stored files, its headers written directly."""
    locals_ = bytearray()
    central = bytearray()
    for index in range(count):
        name = b"f%06d" % index
        offset = len(locals_)
        locals_ += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0x21, 0, 0, 0, 7, 0)
        locals_ += name
        central += struct.pack(
            "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, 0, 0, 0, 7, 0, 0, 0,
            0, 0, offset,
        ) + name  # fmt: skip
    end = struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, len(central), len(locals_), 0
    )
    return bytes(locals_ + central + end)

"""What a phone's camera would read: the QR codes zxing-cpp finds in a
picture, and only QR codes. Read with every format, a row of modules can also
decode as a 1-D barcode (ITF '5898' once, and 'D33D' from a page's
screenshot), so the format is part of the question, not a filter after it."""

from __future__ import annotations

from typing import Any

import zxingcpp

QR_ONLY = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)


def qr_texts(picture: Any) -> list[str]:
    """The texts of the QR codes in picture (a PIL image or a grayscale numpy
    array). The inverted picture is not tried: a code printed in the wrong
    polarity should fail here, as it fails many cameras."""
    found = zxingcpp.read_barcodes(picture, formats=QR_ONLY, try_invert=False)
    return [barcode.text for barcode in found]

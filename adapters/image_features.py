"""WebShop's precomputed image features (``feat_conv.pt``, ``feat_ids.pt``), read with torch when present.

WebShop's ``get_image`` looks up the item page's ``#product-image`` URL in ``feat_ids`` (a list of
image URLs) and returns that row of ``feat_conv`` (512 ResNet features), or ``torch.zeros(512)`` on
pages without a product image. Without the files or torch there is no honest vector to return, so
loading fails in one line naming what is missing; nothing falls back to zeros silently.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from shopsim.errors import ConfigError

__all__ = ["IMAGE_FEATURE_DIM", "ImageFeatures"]

#: WebShop's ResNet image features are 512-dim.
IMAGE_FEATURE_DIM = 512


class ImageFeatures:
    """``url -> feature row``, as WebShop's text env keeps ``feats`` and ``ids``."""

    def __init__(self, feats: Any, ids: dict[str, int], torch: Any):
        self.feats, self.ids, self._torch = feats, ids, torch

    @classmethod
    def load(cls, feat_conv: str | Path, feat_ids: str | Path) -> ImageFeatures:
        """Read both files (WebShop's ``FEAT_CONV`` and ``FEAT_IDS``); one ConfigError line if either is missing."""
        for path in (Path(feat_conv), Path(feat_ids)):
            if not path.is_file():
                raise ConfigError(f"image features: {path} is missing (WebShop's precomputed ResNet features: put "
                                  "feat_conv.pt and feat_ids.pt in the data folder, $SHOPSIM_DATA)")
        try:
            torch = importlib.import_module("torch")
        except ImportError:
            raise ConfigError("image features: reading feat_conv.pt needs torch (pip install 'shopsim[images]')") from None
        try:
            feats = torch.load(str(feat_conv), map_location="cpu")
            urls = torch.load(str(feat_ids), map_location="cpu")
        except Exception as e:  # a corrupt or foreign file: one line, not a traceback
            raise ConfigError(f"image features: cannot read {feat_conv} / {feat_ids}: {type(e).__name__}: {e}") from None
        if len(urls) != len(feats):
            raise ConfigError(f"image features: {feat_ids} names {len(urls)} images but {feat_conv} has {len(feats)} rows")
        return cls(feats, {str(url): i for i, url in enumerate(urls)}, torch)

    def lookup(self, url: str | None) -> Any:
        """The row for ``url``, or a zero vector when the page shows no known product image (as WebShop)."""
        if url is not None and url in self.ids:
            return self.feats[self.ids[url]]
        return self._torch.zeros(IMAGE_FEATURE_DIM)

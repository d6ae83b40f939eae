"""Catalog records: products and goals, validated once at load time."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Goal", "Product", "ProductReview"]


class ProductReview(BaseModel):
    """One review from a WebShop-format reviews file."""

    model_config = ConfigDict(frozen=True)

    title: str = ""
    score: float | None = None
    body: str = ""


class Product(BaseModel):
    """A product after WebShop's ``load_products`` normalisation.

    ``pricing`` is ``[price]`` or ``[low, high]``; ``price_text`` is what pages show
    (``$12.5`` or ``$10.0 to $20.0``); option values are lower-cased with ``/`` turned into ``' | '``.
    """

    model_config = ConfigDict(frozen=True)

    asin: str
    title: str
    description: str = ""
    bullet_points: list[str] = Field(default_factory=list)
    pricing: list[float]
    price_text: str
    options: dict[str, list[str]] = Field(default_factory=dict)
    option_to_image: dict[str, str | None] = Field(default_factory=dict)
    attributes: list[str] = Field(default_factory=list)
    category: str = ""
    query: str = ""
    product_category: str = ""
    main_image: str = ""
    images: list[str] = Field(default_factory=list)
    rating: str = "N.A."
    reviews: list[ProductReview] = Field(default_factory=list)
    instruction_text: str | None = None
    instruction_attributes: list[str] | None = None
    human_instructions: list[dict[str, Any]] = Field(default_factory=list)
    null_option_axes: tuple[str, ...] = ()
    """Option axes the file lists with no values (``null``): WebShop drops them from ``options`` but
    still counts them in its raw ``customization_options`` (which WebShop's baseline reads)."""

    @property
    def category_path(self) -> list[str]:
        """The category breadcrumb as a list (``'A › B'`` -> ``['A', 'B']``)."""
        return [x.strip() for x in self.product_category.split("›") if x.strip()]


class Goal(BaseModel):
    """A shopping goal. Agents see only ``instruction_text`` until they buy."""

    model_config = ConfigDict(frozen=True)

    asin: str
    category: str = ""
    query: str = ""
    name: str = ""
    product_category: str = ""
    instruction_text: str
    attributes: list[str] = Field(default_factory=list)
    price_upper: float = 1000000.0
    goal_options: dict[str, str] | list[str] = Field(default_factory=dict)
    weight: float = 1.0

    @property
    def option_values(self) -> list[str]:
        """The goal's option values, whatever form ``goal_options`` takes."""
        if isinstance(self.goal_options, dict):
            return list(self.goal_options.values())
        return list(self.goal_options)

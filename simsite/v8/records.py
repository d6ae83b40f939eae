"""ShopSimulator's product/task format: read once, validated, normalised into frozen records.

One JSON array of products (``.json`` or ``.json.gz``); each product carries its tasks under
``instructions``. Shapes the seeds allow (category as a list or a ``>`` string, attributes as a
dict or a list, pricing as a number or a list) are normalised here so nothing downstream branches
on them. A malformed record raises :class:`DataError` naming the file, the record and the field.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from shopsim.errors import DataError
from shopsim.simsite.datafiles import one_line, read_data_file, short_repr

__all__ = [
    "MAX_V8_JSON_BYTES",
    "V8Catalog",
    "V8Option",
    "V8Product",
    "V8Task",
    "load_v8_catalog",
    "parse_v8_records",
    "public_persona",
    "read_v8_json",
]

_CATEGORY_SPLIT = re.compile(r"\s*(?:>|›|/)\s*")
_BRAND_KEYS = ("品牌", "Brand", "brand")
_MODEL_KEYS = ("型号", "Model", "model")
TaskMode = Literal["standard", "persona"]
#: The most bytes a v8 catalog file, or the JSON it inflates to, may hold: 256 MiB, about 100,000
#: products (the paper's 22,726 take about 45 MB).
MAX_V8_JSON_BYTES = 256 << 20


class V8Option(BaseModel):
    """One value of an option axis; ``price`` is the SKU price when the crawl recorded one."""

    model_config = ConfigDict(frozen=True)

    value: str
    price: float | None = None


class V8Product(BaseModel):
    """A product after normalisation. ``options`` keeps raw axis names, in file order."""

    model_config = ConfigDict(frozen=True)

    asin: str
    title: str
    shop_name: str = ""
    brand: str = ""
    model: str = ""
    category: list[str] = Field(default_factory=list)
    pricing: list[float] = Field(default_factory=list)
    options: dict[str, list[V8Option]] = Field(default_factory=dict)
    attributes: dict[str, str] = Field(default_factory=dict)
    attribute_list: list[str] = Field(default_factory=list)
    description: str = ""
    bullets: list[str] = Field(default_factory=list)
    user_persona: dict[str, Any] | None = None

    def option_values(self, axis: str) -> list[str]:
        """The values offered on ``axis``, in catalog order."""
        return [o.value for o in self.options.get(axis, [])]

    @property
    def price_axes(self) -> list[str]:
        """Axes whose values carry two or more different prices (they change the SKU price)."""
        out = []
        for axis, opts in self.options.items():
            prices = {o.price for o in opts if o.price is not None}
            if len(prices) > 1:
                out.append(axis)
        return out

    @property
    def attribute_texts(self) -> list[str]:
        """Attributes as display strings (``name: value`` for dict entries)."""
        return [f"{k}: {v}" for k, v in self.attributes.items()] + list(self.attribute_list)

    @property
    def display_price(self) -> float | tuple[float, float] | None:
        """The price shown before options are chosen: one price, a ``(low, high)`` range, or None."""
        if not self.pricing:
            return None
        lo, hi = min(self.pricing), max(self.pricing)
        return lo if lo == hi else (lo, hi)


class V8Task(BaseModel):
    """One task (``instructions[*]``). The private target: attributes, options, budget fields."""

    model_config = ConfigDict(frozen=True)

    task_id: int
    asin: str
    instruction: str
    instruction_simple: str | None = None
    attributes: list[str] = Field(default_factory=list)
    options: list[tuple[str | None, str]] = Field(default_factory=list)
    price_upper: float | None = None
    price_upper_source: str = "price_upper"  # "annotation" when annotate-budgets wrote it
    user_persona: dict[str, Any] | None = None
    task_mode: TaskMode = "standard"

    @property
    def option_values(self) -> list[str]:
        """The target option values, without their axes."""
        return [v for _, v in self.options]

    @property
    def simple_text(self) -> str:
        """The simple request, else the full instruction."""
        return self.instruction_simple or self.instruction

    def instruction_for(self, mode: TaskMode) -> str:
        """What the agent is shown: the simple request in persona mode, else the full goal."""
        return self.simple_text if mode == "persona" else self.instruction


class V8Catalog(BaseModel):
    """Products and tasks of one catalog; tasks are addressed by ``task_id``."""

    model_config = ConfigDict(frozen=True)

    products: list[V8Product]
    tasks: list[V8Task]
    source: str = ""

    def model_post_init(self, _: Any) -> None:
        """Index the products by ASIN and the tasks by id."""
        object.__setattr__(self, "_by_asin", {p.asin: p for p in self.products})
        object.__setattr__(self, "_by_task", {t.task_id: t for t in self.tasks})

    def product(self, asin: str) -> V8Product | None:
        """The product with this ASIN, or None."""
        return self._by_asin.get(asin)  # type: ignore[attr-defined]

    def task(self, task_id: int) -> V8Task | None:
        """The task with this id, or None."""
        return self._by_task.get(task_id)  # type: ignore[attr-defined]

    @property
    def task_ids(self) -> list[int]:
        """Every task id, in catalog order."""
        return [t.task_id for t in self.tasks]


def public_persona(persona: dict[str, Any] | None) -> dict[str, Any] | None:
    """The persona the agent may see: ``__reasoning__`` removed at every depth."""
    if persona is None:
        return None

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k != "__reasoning__"}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return strip(persona)


# ---- reading -------------------------------------------------------------------------------------
def read_v8_json(path: str | Path, raw: bytes | None = None) -> tuple[Any, bytes]:
    """Read ``.json`` or ``.json.gz``; returns the parsed JSON and the decompressed bytes.

    ``raw``: the file's bytes when the caller has read (and checked) them already, so what is
    parsed is what was checked, not a second read of a file that may have changed since. Both the
    file and its inflated JSON are bounded by :data:`MAX_V8_JSON_BYTES` (v8 catalogs are a few
    MB), so neither a sparse huge file nor a gzip bomb can exhaust memory.
    """
    p = Path(path)
    if raw is None:
        raw = read_data_file(p, MAX_V8_JSON_BYTES)
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip(p, raw)
    try:
        return json.loads(raw.decode("utf-8")), raw
    except UnicodeDecodeError as exc:
        raise DataError(f"{p}: not UTF-8 text: {exc}") from exc
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, an over-long integer, deep nesting
        raise DataError(f"{p}: not valid JSON: {exc}") from exc


def _gunzip(p: Path, raw: bytes) -> bytes:
    """Every gzip member of ``raw``, inflated to at most :data:`MAX_V8_JSON_BYTES`."""
    out: list[bytes] = []
    size = 0
    try:
        while raw:
            d = zlib.decompressobj(wbits=31)
            while raw:
                chunk = d.decompress(raw, MAX_V8_JSON_BYTES + 1 - size)
                out.append(chunk)
                size += len(chunk)
                if size > MAX_V8_JSON_BYTES:
                    raise DataError(f"{p}: inflates to over {MAX_V8_JSON_BYTES:,} bytes (a v8 catalog is a few MB); "
                                    "refusing to read it")
                raw = d.unconsumed_tail
                if d.eof:
                    break
            if not d.eof:
                raise DataError(f"{p}: not a valid gzip file: truncated (the end of the stream is missing)")
            raw = d.unused_data.lstrip(b"\0")  # zero padding after the last member, as gzip allows
    except zlib.error as exc:  # bad header or corrupt deflate data
        raise DataError(f"{p}: not a valid gzip file: {exc}") from exc
    return b"".join(out)


def load_v8_catalog(path: str | Path) -> V8Catalog:
    """Load a ShopSimulator-format catalog file (``.json`` or ``.json.gz``)."""
    data, _ = read_v8_json(path)
    return parse_v8_records(data, str(path))


def parse_v8_records(data: Any, where: str) -> V8Catalog:
    """Validate and normalise parsed records; ``where`` names the source in errors."""
    if not isinstance(data, list):
        raise DataError(f"{where}: expected a JSON array of products, got {type(data).__name__}")
    products: list[V8Product] = []
    tasks: list[V8Task] = []
    seen_asins: set[str] = set()
    seen_tasks: dict[int, str] = {}
    for i, rec in enumerate(data):
        product = _product(rec, f"{where}: product {i}")
        at = f"{where}: product {i} ({one_line(product.asin)})"
        if product.asin in seen_asins:
            raise DataError(f"{at}: field 'asin': duplicate ASIN {short_repr(product.asin)}")
        seen_asins.add(product.asin)
        products.append(product)
        raw_tasks = rec.get("instructions") or []
        if not isinstance(raw_tasks, list):
            raise DataError(f"{at}: field 'instructions': expected a list, got {type(raw_tasks).__name__}")
        for j, t in enumerate(raw_tasks):
            task = _task(t, product, f"{at}: instructions[{j}]")
            if task.task_id in seen_tasks:
                raise DataError(f"{at}: instructions[{j}]: field 'task_id': {task.task_id} is also a task of "
                                f"{seen_tasks[task.task_id]}")
            seen_tasks[task.task_id] = product.asin
            tasks.append(task)
    if not products:
        raise DataError(f"{where}: the catalog has no products")
    return V8Catalog(products=products, tasks=tasks, source=where)


def _str(rec: dict[str, Any], key: str, at: str, *, required: bool = False) -> str:
    value = rec.get(key)
    if value is None:
        if required:
            raise DataError(f"{at}: field '{key}': missing")
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise DataError(f"{at}: field '{key}': expected a string, got {type(value).__name__}")
    return str(value).strip()


def _number(value: Any, at: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise DataError(f"{at}: field '{key}': expected a number, got {type(value).__name__}")
    try:
        out = float(str(value).replace(",", "").lstrip("¥$￥").strip()) if isinstance(value, str) else float(value)
    except (ValueError, OverflowError) as exc:  # OverflowError: an integer past float range
        raise DataError(f"{at}: field '{key}': {short_repr(value)} is not a number") from exc
    if not math.isfinite(out) or out < 0:
        raise DataError(f"{at}: field '{key}': {short_repr(value)} is not a finite non-negative price")
    return out


def _product(rec: Any, at: str) -> V8Product:
    if not isinstance(rec, dict):
        raise DataError(f"{at}: expected an object, got {type(rec).__name__}")
    asin = _str(rec, "asin", at, required=True)
    if not asin:
        raise DataError(f"{at}: field 'asin': empty")
    at = f"{at} ({one_line(asin)})"
    title = _str(rec, "title", at, required=True)
    attributes, attribute_list = _attributes(rec.get("attribute"), at)
    brand = _str(rec, "brand", at) or next((attributes[k] for k in _BRAND_KEYS if attributes.get(k)), "")
    model = _str(rec, "model", at) or next((attributes[k] for k in _MODEL_KEYS if attributes.get(k)), "")
    persona = rec.get("user_persona")
    if persona is not None and not isinstance(persona, dict):
        raise DataError(f"{at}: field 'user_persona': expected an object, got {type(persona).__name__}")
    return V8Product(
        asin=asin, title=title, shop_name=_str(rec, "shop_name", at), brand=brand, model=model,
        category=_category(rec.get("category"), at), pricing=_pricing(rec.get("pricing"), at),
        options=_options(rec.get("customization_options"), at), attributes=attributes,
        attribute_list=attribute_list, description=_str(rec, "full_description", at),
        bullets=_bullets(rec.get("small_description"), at), user_persona=persona,
    )


def _category(raw: Any, at: str) -> list[str]:
    if raw is None:
        return []
    if isinstance(raw, str):
        return [c for c in _CATEGORY_SPLIT.split(raw.strip()) if c]
    if isinstance(raw, list) and all(isinstance(c, str) for c in raw):
        return [c.strip() for c in raw if c.strip()]
    raise DataError(f"{at}: field 'category': expected a list of strings or one string")


def _pricing(raw: Any, at: str) -> list[float]:
    if raw is None or raw == []:
        return []
    values = raw if isinstance(raw, list) else [raw]
    if len(values) > 2:
        raise DataError(f"{at}: field 'pricing': expected 1 or 2 numbers, got {len(values)}")
    return [_number(v, at, "pricing") for v in values]


def _options(raw: Any, at: str) -> dict[str, list[V8Option]]:
    if raw is None or raw == {} or raw == []:
        return {}
    if not isinstance(raw, dict):
        raise DataError(f"{at}: field 'customization_options': expected an object of axes")
    out: dict[str, list[V8Option]] = {}
    for axis, values in raw.items():
        where = f"{at}: field 'customization_options.{one_line(str(axis))}'"
        if not isinstance(values, list):
            raise DataError(f"{where}: expected a list of options")
        opts: list[V8Option] = []
        for k, o in enumerate(values):
            if isinstance(o, str):
                o = {"value": o}
            if not isinstance(o, dict) or not _scalar_value(o.get("value")):
                raise DataError(f"{where}[{k}]: expected an object with a string 'value'")
            price = o.get("price")
            field = f"customization_options.{one_line(str(axis))}[{k}].price"
            opts.append(V8Option(value=str(o["value"]).strip(),
                                 price=None if price in (None, "") else _number(price, at, field)))
        if opts and str(axis).strip():
            out[str(axis).strip()] = opts
    return out


def _attributes(raw: Any, at: str) -> tuple[dict[str, str], list[str]]:
    if raw is None:
        return {}, []
    if isinstance(raw, dict):
        return {str(k): _scalar_text(v) for k, v in raw.items()}, []
    if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
        return {}, [x.strip() for x in raw if x.strip()]
    raise DataError(f"{at}: field 'attribute': expected an object or a list of strings")


def _scalar_text(v: Any) -> str:
    if isinstance(v, list):
        return "、".join(str(x) for x in v)
    return "" if v is None else str(v)


def _bullets(raw: Any, at: str) -> list[str]:
    if raw is None:
        return []
    if isinstance(raw, str):
        return [raw.strip()] if raw.strip() else []
    if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
        return [x.strip() for x in raw if x.strip()]
    raise DataError(f"{at}: field 'small_description': expected a string or a list of strings")


def _scalar_value(v: Any) -> bool:
    """An option value may be a string or an integer (``128``); ``true`` is neither."""
    return isinstance(v, (str, int)) and not isinstance(v, bool)


def _task(rec: Any, product: V8Product, at: str) -> V8Task:
    if not isinstance(rec, dict):
        raise DataError(f"{at}: expected an object, got {type(rec).__name__}")
    tid = rec.get("task_id")
    if isinstance(tid, bool) or not isinstance(tid, int):
        if isinstance(tid, str) and tid.isascii() and tid.isdigit():  # not '²': str.isdigit takes it, int() not
            tid = int(tid)
        else:
            raise DataError(f"{at}: field 'task_id': expected an integer, got {tid!r}"[:300])
    at = f"{at} (task {tid})"
    instruction = _str(rec, "instruction", at, required=True)
    if not instruction:
        raise DataError(f"{at}: field 'instruction': empty")
    attrs = rec.get("attributes") or []
    if not isinstance(attrs, list) or not all(isinstance(a, str) for a in attrs):
        raise DataError(f"{at}: field 'attributes': expected a list of strings")
    raw_opts = rec.get("instruction_options") or {}
    options: list[tuple[str | None, str]]
    if isinstance(raw_opts, dict) and all(_scalar_value(v) for v in raw_opts.values()):
        options = [(str(k), str(v)) for k, v in raw_opts.items()]
    elif isinstance(raw_opts, list) and all(_scalar_value(v) for v in raw_opts):
        options = [(None, str(v)) for v in raw_opts]
    else:
        raise DataError(f"{at}: field 'instruction_options': expected an object {{axis: value}} or a list of values")
    price_upper = rec.get("price_upper")
    budget: float | None = None
    if price_upper is not None:
        try:
            budget = _number(price_upper, at, "price_upper")
        except DataError:
            budget = None  # "a valid number" or else parsed from the text (the contract)
        if budget is not None and budget <= 0:
            budget = None
    persona = rec.get("user_persona")
    if persona is not None and not isinstance(persona, dict):
        raise DataError(f"{at}: field 'user_persona': expected an object, got {type(persona).__name__}")
    simple = _str(rec, "instruction_simple", at) or None
    persona = persona if persona is not None else product.user_persona
    raw_mode = rec.get("task_mode")
    if raw_mode not in (None, "standard", "persona"):
        raise DataError(f"{at}: field 'task_mode': expected 'standard' or 'persona', got {raw_mode!r}"[:300])
    mode: TaskMode | None = raw_mode
    if mode is None:
        mode = "persona" if persona is not None and simple else "standard"
    elif mode == "persona" and persona is None:
        raise DataError(f"{at}: field 'task_mode': 'persona' but neither the task nor its product has a user_persona")
    return V8Task(task_id=tid, asin=product.asin, instruction=instruction, instruction_simple=simple,
                  attributes=[a.strip() for a in attrs if a.strip()], options=options, price_upper=budget,
                  price_upper_source="annotation" if rec.get("price_upper_source") == "annotation" else "price_upper",
                  user_persona=persona, task_mode=mode)


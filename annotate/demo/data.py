"""The demo's corpus: product searches and the shop listings they could return.

Each query has a few fictional brands and three tiers of products: ones that answer the query
(Good), ones that answer part of it (Fair: the wrong size, a related product), and ones that
share its words but not its need (Bad: accessories, spare parts). The builder crosses brands,
products and facts into listings, so the true relevance of every document is known by
construction and the seeded raters can be right or wrong about it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Behaviour = Literal["better", "worse", "same"]


@dataclass(frozen=True)
class Product:
    name: str
    price: float
    facts: tuple[str, ...]


@dataclass(frozen=True)
class QuerySpec:
    text: str
    intent: str
    department: str
    brands: tuple[str, ...]
    good: tuple[Product, ...]
    fair: tuple[Product, ...]
    bad: tuple[Product, ...]
    # How the candidate ranker does on this query; "same" makes both top 10s identical.
    candidate: Behaviour = "better"


def _product(row: list) -> Product:
    name, price, facts = row
    return Product(name, float(price), tuple(f.strip() for f in facts.split(";")))


def _load(path: Path) -> tuple[QuerySpec, ...]:
    with path.open("rb") as f:
        rows = tomllib.load(f)["query"]
    return tuple(
        QuerySpec(
            text=row["text"],
            intent=row.get("intent", ""),
            department=row["department"],
            brands=tuple(row["brands"]),
            good=tuple(map(_product, row["good"])),
            fair=tuple(map(_product, row["fair"])),
            bad=tuple(map(_product, row["bad"])),
            candidate=row.get("candidate", "better"),
        )
        for row in rows
    )


# The corpus is data, kept as data: corpus.toml beside this module.
QUERIES: tuple[QuerySpec, ...] = _load(Path(__file__).with_name("corpus.toml"))

SHOP_DOMAINS = ("shop.example", "megamart.example", "gearhub.example", "outlet.example")

SHIPPING = (
    "free delivery",
    "in stock, ships tomorrow",
    "free returns within 30 days",
    "delivery in 2-4 days",
    "only a few left",
)

MODEL_NAMES = ("Air", "Pro", "Max", "Lite", "One", "Go", "Flex", "Ultra", "Core", "Neo")

GUIDELINES = """\
# How to grade

You see a product search query and one result from the shop. Grade how well **this result
answers what the person was looking for**. Read the query's intent when one is given.

- **Good** (G, 1): the product is what the query asks for. It matches the product type and
  every requirement that is stated (size, capacity, feature, who it is for).
- **Fair** (F, 2): related and possibly useful, but it misses part of the need: the wrong size,
  a missing feature, a similar product of another type.
- **Bad** (B, 3): does not answer the query: an accessory, a spare part, or something that only
  shares a word with the query.

Judge the listing as shown, not the brand or the price. If the page is broken or you cannot
tell what the product is, press **X** (can't judge). **S** skips an item for now.
"""

DESCRIPTION = (
    "Does the BERT candidate ranker beat production on product search? "
    "Graded judgments of the pooled top 10 of both systems, and a side-by-side comparison."
)


@dataclass(frozen=True)
class DemoText:
    """Everything of the demo that is written in one language: the campaign, its corpus, the
    listings' wording, and what the seeded raters write (judging.py)."""

    language: str  # the campaign's interface language for its raters ("" = the browser's)
    slug: str
    name: str
    description: str
    guidelines: str
    queries: tuple[QuerySpec, ...]
    shop_domains: tuple[str, ...]
    shipping: tuple[str, ...]
    model_names: tuple[str, ...]
    systems: tuple[str, str]  # the baseline's and the candidate's descriptions
    comments: dict[int, tuple[str, ...]]
    cant_judge_comments: tuple[str, ...]
    reasons_better: tuple[str, ...]  # {better} / {worse}: the side's name
    reasons_same: tuple[str, ...]
    sides: tuple[str, str]  # how a reason names the left and the right list

    def snippet(self, facts: list[str], price: float, shipping: str) -> str:
        if self.language.startswith("zh"):
            return f"{'；'.join(facts)}。¥{price:.2f}，{shipping}。"
        sentences = " ".join(f"{fact[0].upper()}{fact[1:]}." for fact in facts)
        return f"{sentences} ${price:.2f}, {shipping}."


ENGLISH = DemoText(
    language="",
    slug="demo",
    name="Demo: product search",
    description=DESCRIPTION,
    guidelines=GUIDELINES,
    queries=QUERIES,
    shop_domains=SHOP_DOMAINS,
    shipping=SHIPPING,
    model_names=MODEL_NAMES,
    systems=(
        "Production: BM25 with a learning-to-rank layer.",
        "BERT cross-encoder reranking the production top 100.",
    ),
    comments={
        3: ("Exactly what the query asks for.",),
        2: ("Right product, wrong size.", "Close, but misses a feature the query asks for."),
        1: ("Accessory, not the product.", "Unrelated product."),
    },
    cant_judge_comments=("Listing shows no product details.", "Cannot tell the size from this."),
    reasons_better=(
        "{better} list has more exact matches in the top three.",
        "{worse} list is full of accessories.",
        "{better} list puts the best product first.",
        "{worse} list misses the size the query asks for.",
    ),
    reasons_same=(
        "Both lists show much the same products.",
        "Different order, same quality.",
        "Both have good and bad results; hard to pick.",
    ),
    sides=("Left", "Right"),
)


def demo_text(language: str) -> DemoText:
    """The demo in a language: "en" or "zh"."""
    if language == "zh":
        from annotate.demo.chinese import CHINESE

        return CHINESE
    if language == "en":
        return ENGLISH
    raise ValueError(f"no demo in {language!r}: en or zh")

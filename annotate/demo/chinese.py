"""The Chinese demo (`manage.py demo --lang zh`): product searches as people type them on a
Chinese shopping site (corpus_zh.toml), listings worded as such sites word them, and raters
who write their comments in Chinese. The campaign's language is zh-Hans, so its scale is
好 / 一般 / 差 and its raters get the Chinese interface."""

from __future__ import annotations

from pathlib import Path

from annotate.demo.data import DemoText, _load

GUIDELINES = """\
# 评分标准

你会看到一条商品搜索查询和商城返回的一条结果。请判断**这条结果在多大程度上满足了用户想找的东西**。
如果查询给出了意图说明，请一并阅读。

- **好**（G，1）：正是查询要找的商品。商品类型对，查询中写明的每个要求
  （尺码、容量、功能、适用人群）都满足。
- **一般**（F，2）：相关，可能有用，但只满足了部分需求：尺码不对、缺少某个功能，
  或是类型相近的其他商品。
- **差**（B，3）：不满足查询：配件、替换件，或只是和查询有相同字词的商品。

按页面展示的商品信息判断，不要根据品牌或价格判断。
如果页面打不开或看不出是什么商品，按 **X**（无法判断）。按 **S** 可以暂时跳过一个条目。
"""

CHINESE = DemoText(
    language="zh-hans",
    slug="demo-zh",
    name="演示：商品搜索",
    description=(
        "BERT 实验排序在商品搜索上是否优于线上版本？对两个系统召回的前 10 条合并建池做分级标注，"
        "并做一次并排（GSB）对比。"
    ),
    guidelines=GUIDELINES,
    queries=_load(Path(__file__).with_name("corpus_zh.toml")),
    shop_domains=("mall.example.cn", "shop.example.cn", "item.example.cn", "buy.example.cn"),
    shipping=("包邮", "现货，次日达", "7 天无理由退货", "2-4 天送达", "库存紧张"),
    model_names=("Air", "Pro", "Max", "Lite", "S", "X", "Plus", "Mini", "Ultra"),
    systems=(
        "线上版本：BM25 加排序学习（LTR）层。",
        "BERT 交叉编码器对线上前 100 条重排。",
    ),
    comments={
        3: ("完全符合查询。",),
        2: ("商品对，但尺码不对。", "接近，但缺少查询要求的功能。"),
        1: ("是配件，不是查询要的商品。", "商品不相关。"),
    },
    cant_judge_comments=("页面没有商品详情。", "从页面上看不出尺码。"),
    reasons_better=(
        "{better}前三条完全匹配的更多。",
        "{worse}全是配件。",
        "{better}把最好的商品排在了第一位。",
        "{worse}没有查询要的尺码。",
    ),
    reasons_same=(
        "两边的商品差不多。",
        "顺序不同，质量一样。",
        "两边都有好有差，很难选。",
    ),
    sides=("左边", "右边"),
)

"""The inspector's words, in Chinese and English (the persona's locale picks them)."""

from __future__ import annotations

WORDS = {
    "zh": {
        "title": "记忆检查器",
        "persona": "人设",
        "user": "用户",
        "pick": "选择用户",
        "open": "查看",
        "tick": "当前刻度（检索次数）",
        "active": "活跃窗口（原文）",
        "hot": "热记忆",
        "layer": "层",
        "content": "内容",
        "now": "当前重要度",
        "forget_at": "遗忘于刻度",
        "never": "不会遗忘",
        "curve": "衰减曲线",
        "profile": "用户档案",
        "retrievals": "最近的检索",
        "query": "查询",
        "dense": "向量排名",
        "keyword": "关键词排名",
        "score": "融合得分",
        "weight": "层权重",
        "significance": "重要度",
        "near": "差一点入选",
        "cold": "冷层（已遗忘）",
        "search": "搜索",
        "restore": "恢复",
        "forget": "删除",
        "confirm": "永久删除这条记忆？此操作无法撤销。",
        "none": "（无）",
        "users": "用户",
        "revived": "从冷层召回",
        "matched": "命中的词",
        "key": "键",
        "value": "值",
        "source": "来源",
        "in_prompt": "同时在提示中的活跃窗口",
        "legend_score": (
            "融合得分 = 向量相似度与关键词匹配（BM25）各自归一后的加权和，"
            "另加新近、重要度和问题所指时间的小幅加分，越高越靠前；"
            "排名为各自单独检索时的名次（–：未找到）。"
        ),
        "legend_rrf": (
            "融合得分 = 倒数排名融合（RRF）：1/(k+向量排名) + 1/(k+关键词排名)，越高越靠前（–：未找到）。"
        ),
        "similarity": "向量相似度",
        "legend_similarity": "向量相似度为问题与记忆的余弦相似度（1：意思相同，0：毫不相关）。",
        "sim_close": "（很接近）",
        "sim_related": "（相关）",
        "sim_loose": "（有点关系）",
        "sim_far": "（几乎无关）",
        "floor": (
            "相关性下限：仅向量命中需相似度 ≥ {dense:.2f}，关键词也命中需 ≥ {keywords:.2f}；不够的名额留空。"
        ),
        "no_floor": "未开启相关性下限（retrieval.relevance_floor）：名额总会填满。",
        "axis_tick": "刻度",
        "temporary": "临时层",
        "summary": "摘要层",
        "static": "人设记忆",
        "archived": "冷层",
        "active_layer": "活跃层",
    },
    "en": {
        "title": "Memory inspector",
        "persona": "Persona",
        "user": "User",
        "pick": "Pick a user",
        "open": "Open",
        "tick": "Current tick (retrievals)",
        "active": "Active window (verbatim)",
        "hot": "Hot memories",
        "layer": "Layer",
        "content": "Content",
        "now": "Significance now",
        "forget_at": "Forgotten at tick",
        "never": "never",
        "curve": "Decay curve",
        "profile": "Profile facts",
        "retrievals": "Last retrievals",
        "query": "Query",
        "dense": "Dense rank",
        "keyword": "Keyword rank",
        "score": "Fused score",
        "weight": "Layer weight",
        "significance": "Significance",
        "near": "Near misses",
        "cold": "Cold tier (forgotten)",
        "search": "Search",
        "restore": "Restore",
        "forget": "Forget",
        "matched": "Matched words",
        "key": "Key",
        "value": "Value",
        "source": "Source",
        "in_prompt": "Active window, in the prompt as well",
        "legend_score": (
            "Fused score = weighted sum of the dense similarity and the keyword (BM25) match, "
            "each normalised, plus small bonuses (recency, importance, a time the question "
            "names); higher wins. Ranks: the place in each search alone (–: not found)."
        ),
        "legend_rrf": (
            "Fused score = reciprocal rank fusion: 1/(k + dense rank) + 1/(k + keyword rank); "
            "higher wins (–: not found)."
        ),
        "similarity": "Dense similarity",
        "legend_similarity": (
            "Dense similarity: the cosine of question and memory (1: same meaning, 0: unrelated)."
        ),
        "sim_close": "(close)",
        "sim_related": "(related)",
        "sim_loose": "(loosely)",
        "sim_far": "(unrelated)",
        "floor": (
            "Relevance floor: a dense match alone needs a similarity >= {dense:.2f}, one keywords "
            "also found >= {keywords:.2f}; slots stay empty otherwise."
        ),
        "no_floor": "No relevance floor (retrieval.relevance_floor): every slot is filled.",
        "axis_tick": "tick",
        "temporary": "temporary",
        "summary": "summary",
        "static": "persona",
        "archived": "cold",
        "active_layer": "active",
        "confirm": "Erase this memory for good? This cannot be undone.",
        "none": "(none)",
        "users": "Users",
        "revived": "revived from the cold tier",
    },
}

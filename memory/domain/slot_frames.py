# ruff: noqa: E501  (rows of phrases)
"""The frames a slot's phrases are set in for the classifier's corpus
(:mod:`memory.domain.slot_corpus`): who else could be meant, times, openers and tails, wishes
and plans, and the small talk and one-off episodes that set no slot."""

from __future__ import annotations

WHO_EN = ["my sister", "my brother", "my mum", "my dad", "my friend", "my colleague", "my roommate",
           "my neighbour", "my boss", "he", "she", "Tom", "Lisa", "my cousin", "our teacher", "a guy at work"]  # fmt: skip
WHO_ZH = ["我妹妹", "我哥", "我妈", "我爸", "我朋友", "我同事", "我室友", "我邻居", "我老板", "他", "她",
           "小王", "我表姐", "我们老师", "隔壁老李"]  # fmt: skip
TIME_EN = [
    "",
    "",
    " last month",
    " recently",
    " this year",
    " a few weeks ago",
    " in the spring",
    " yesterday",
]
TIME_ZH = ["", "", "上个月", "最近", "今年", "前几天", "去年年底", "刚刚"]
NOW_EN = ["", "", " now", " these days", " nowadays", " at the moment"]
NOW_ZH = ["", "", "现在", "如今", "这阵子", "目前"]
TRANSPORT_EN = ["ferry", "bus", "train", "subway", "tram", "shuttle", "metro", "night bus"]
WOULD_EN = [
    "I would be happier",
    "life would be easier",
    "that would be fun",
    "I'd finally relax",
    "I'd be so much calmer",
    "I'd learn something new",
    "everything would change",
]
ROUTINES = [
    ("去游泳", "go swimming"),
    ("六点起床", "get up at six"),
    ("去跑步", "go for a run"),
    ("遛狗", "walk the dog"),
    ("练瑜伽", "do yoga"),
    ("看书", "read for an hour"),
    ("给花浇水", "water the plants"),
    ("写日记", "write in my journal"),
    ("做早饭", "make breakfast"),
    ("去健身房", "go to the gym"),
]
SKILLS = [
    ("攀岩", "climbing"),
    ("游泳", "to swim"),
    ("日语", "Japanese"),
    ("做饭", "to cook"),
    ("编程", "to code"),
    ("开车", "to drive"),
    ("滑雪", "to ski"),
    ("画画", "to paint"),
]
SELF = [
    ("新来的", "new here"),
    ("单身", "single"),
    ("左撇子", "left-handed"),
    ("夜猫子", "a night owl"),
    ("独生子", "an only child"),
    ("急性子", "impatient"),
    ("社恐", "shy"),
    ("第一次来", "here for the first time"),
]
EPISODES = {  # once is no slot: what happened today with a slot's value
    "home": ("去{v}玩了一趟", "visited {v} for the day"),
    "job": ("见了一个{v}", "met a {v} at the party"),
    "car": ("坐了朋友的{v}", "rode in my friend's {v}"),
    "phone": ("借同事的{v}用了一下", "borrowed a {v} for a call"),
    "partner": ("和{v}吃了顿饭", "had lunch with {v}"),
    "school": ("去{v}参观了", "toured {v}"),
    "diet": ("试了一次{v}", "tried {v} food once"),
    "hometown": ("路过了{v}", "passed through {v}"),
    "favourite_food": ("吃了{v}", "ate {v}"),
    "favourite_drink": ("喝了{v}", "drank some {v}"),
    "team": ("看了{v}的比赛", "watched {v} play"),
    "instrument": ("练了{v}", "practised the {v}"),
    "computer": ("用了会儿{v}", "tried a {v} at the store"),
    "commute": ("{v}去了趟超市", "went to the shop {v}"),
}
TODAY_ZH = ["今天", "刚才", "昨天", "今天第3次", "中午", "周末"]
TODAY_EN = ["today", "this morning", "yesterday", "just now", "for the third time today"]
PLAN_EN = ["planning", "hoping", "thinking about whether", "going", "considering whether", "about"]
LATER_EN = [" next year", " soon", " someday", "", " after the summer"]
PLAN_ZH = ["打算", "想", "准备", "计划", "考虑", "要"]
LATER_ZH = ["明年", "以后", "过两年", "", "过阵子", "下个月"]
OPEN_EN = ["", "", "", "btw ", "oh, ", "guess what, ", "so ", "fun fact: ", "just so you know, ", "update: "]
OPEN_ZH = ["", "", "", "跟你说，", "对了，", "告诉你个事，", "话说", "更新一下，"]
TAIL_EN = [
    "",
    ".",
    "!",
    ", it's been a big change.",
    " and I love it.",
    ", long story.",
    " lol",
    ", finally.",
]
TAIL_ZH = ["", "。", "！", "，感觉还不错。", "，有点不习惯。", "～", "，挺开心的。", "，说来话长。"]
CHAT_EN = ["I had {food} for lunch today", "watched {show} last night", "the weather is awful today",
            "I'm so tired after work", "went shopping at the mall", "my cat knocked over a glass",
            "I slept in this morning", "it's raining again", "I finished a puzzle", "my knee hurts a bit",
            "I'm allergic to {thing}", "my birthday is in {month}", "my dog is called {name}",
            "I'm scared of {thing}", "I took the bus to the museum today", "I drank a {drink} this afternoon",
            "I tried {food} for the first time", "I visited {city} last summer", "I read a book about {thing}",
            "I cleaned the whole flat", "I met {name} for coffee", "I played tennis with {name}",
            "my favourite colour is green", "I have two kids", "I'm learning to cook", "I lost my keys again",
            "I took the subway to the park today", "I drove to the beach on Sunday", "I ate {food} yesterday",
            "I borrowed my friend's laptop", "I watched the Lakers game", "I went to a violin concert",
            "my phone battery died", "I visited a university campus", "I took a taxi home", "my car needs a wash",
            "I walked to the market this morning", "my sister's phone is broken", "I cooked {food} for my family"]  # fmt: skip
CHAT_ZH = ["今天中午吃了{food}", "昨晚看了{show}", "今天天气太差了", "下班好累啊", "去商场逛了逛",
            "我家猫把杯子打翻了", "早上睡过头了", "又下雨了", "拼完了一个拼图", "膝盖有点疼",
            "我对{thing}过敏", "我生日在{month}", "我家狗叫{name}", "我怕{thing}", "今天坐公交去了博物馆",
            "下午喝了杯{drink}", "第一次尝了{food}", "去年夏天去了{city}", "读了本讲{thing}的书",
            "把家里打扫了一遍", "和{name}喝了咖啡", "跟{name}打了网球", "我最喜欢的颜色是绿色", "我有两个孩子",
            "在学做饭", "钥匙又丢了",
            "今天坐地铁去了公园", "周日开车去了海边", "昨天吃了{food}", "借了朋友的电脑", "看了场湖人的比赛",
            "去听了小提琴音乐会", "手机没电了", "去大学校园逛了逛", "打车回家了", "车该洗了", "早上走路去了菜市场",
            "我姐的手机坏了", "给家里人做了{food}", "我特别喜欢{hobby}", "我今天开车去公司，路上好堵",
            "昨天坐地铁去了{city}", "刚才骑车去买了菜", "我老公今天加班", "我老婆今晚做了{food}", "我男朋友出差了",
            "我女朋友很喜欢{hobby}", "最近迷上了{hobby}", "今天打车去的公司"]  # fmt: skip
FILL = {
    "food": ["pizza", "noodles", "a salad", "dumplings", "饺子", "面条", "沙拉", "包子"],
    "show": ["a documentary", "a comedy", "一部纪录片", "一部喜剧"],
    "thing": ["cats", "peanuts", "spiders", "history", "猫毛", "花生", "蜘蛛", "历史"],
    "month": ["May", "October", "五月", "十月"],
    "name": ["Max", "Bella", "Sam", "豆豆", "旺财", "小李"],
    "drink": ["lemonade", "cola", "奶茶", "可乐"],
    "city": ["Rome", "Kyoto", "罗马", "京都"],
    "hobby": ["pottery", "knitting", "board games", "hiking", "陶艺", "织毛衣", "桌游", "爬山"],
}


ADJECTIVE_EN = ["", "", "", "new ", "secondhand ", "shiny ", "refurbished "]
DESCRIBED = ("car", "phone", "computer")

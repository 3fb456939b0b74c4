# ruff: noqa: E501  (the corpus: rows of phrases, one slot a block)
"""The generated corpus the slot classifier learns from (:mod:`memory.domain.slot_model`).

Each slot has values, acts (something the user did: "moved to X", "搬到了X") and states (what is
true: "I live in X", "住在X"), in Chinese and English. Statements are built by composing them with
times, openers and tails: first person is the slot's class; the same phrases said of someone else,
negated, as a wish, a plan or a question are ``none``, and so is small talk and personal facts
that are no slot. Nothing here is taken from the benchmarks' sentences.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

NONE = "none"

_S: dict[str, dict[str, list[str]]] = {
    "home": {
        "change_en": ["moved house", "moved again", "we finally moved"],
        "change_zh": ["搬家了", "又搬家了", "搬了新家"],
        "v_en": ["Lisbon", "Denver", "Osaka", "Leeds", "Austin", "Melbourne", "Munich", "Vancouver",
                 "Hangzhou", "Chengdu", "Seoul", "Dublin", "the suburbs", "a village near York"],
        "v_zh": ["杭州", "成都", "深圳", "大理", "苏州", "厦门", "青岛", "南京", "武汉", "长沙", "西安",
                 "郊区", "老城区", "城东"],
        "acts_en": ["move to {v}|moved to {v}", "relocate to {v}|relocated to {v}",
                    "rent a flat in {v}|rented a flat in {v}", "settle down in {v}|settled down in {v}",
                    "buy a house in {v}|bought a house in {v}", "move into a place in {v}|moved into a place in {v}"],
        "states_en": ["I live in {v}|{who} lives in {v}", "I'm based in {v}|{who} is based in {v}",
                      "my home is in {v}|{whose} home is in {v}", "I call {v} home|{who} calls {v} home",
                      "my new place is in {v}|{whose} new place is in {v}"],
        "acts_zh": ["搬到了{v}", "搬去了{v}", "在{v}买了房", "在{v}租了个房子", "定居在了{v}", "把家安在了{v}"],
        "states_zh": ["住在{v}", "家在{v}", "在{v}生活", "在{v}安家", "住{v}那边"],
    },
    "job": {
        "change_en": ["changed jobs", "quit my old job", "got a new job"],
        "change_zh": ["换工作了", "辞职了", "跳槽了"],
        "v_en": ["nurse", "data analyst", "pilot", "chemistry teacher", "software engineer", "lawyer",
                 "barista", "architect", "product manager", "pharmacist", "electrician", "accountant"],
        "v_zh": ["护士", "数据分析师", "飞行员", "化学老师", "程序员", "律师", "咖啡师", "建筑师",
                 "产品经理", "药剂师", "电工", "会计", "外卖员", "摄影师"],
        "acts_en": ["become a {v}|became a {v}", "start working as a {v}|started working as a {v}",
                    "get a job as a {v}|got a job as a {v}", "retrain as a {v}|retrained as a {v}",
                    "switch careers to be a {v}|switched careers to be a {v}",
                    "take a new job as a {v}|took a new job as a {v}"],
        "states_en": ["I work as a {v}|{who} works as a {v}", "I'm a {v}|{who} is a {v}",
                      "my job is {v}|{whose} job is {v}", "I earn my living as a {v}|{who} earns a living as a {v}"],
        "acts_zh": ["当上了{v}", "转行做了{v}", "换了工作，做{v}", "入职当了{v}", "成了一名{v}", "跳槽去当{v}了"],
        "states_zh": ["是{v}", "做{v}", "在当{v}", "的工作是{v}", "干{v}这一行", "在一家公司做{v}", "在医院当{v}",
                      "在一家创业公司当{v}", "的职业是{v}"],
    },
    "car": {
        "change_en": ["got rid of my old car", "changed cars"],
        "change_zh": ["换车了", "把旧车卖了"],
        "v_en": ["Honda Civic", "Tesla Model Y", "Volvo XC60", "Mazda 3", "Toyota Corolla", "BMW X3",
                 "Kia EV6", "Ford Focus", "Audi A4", "Nissan Leaf", "Jeep Wrangler"],
        "v_zh": ["比亚迪海豹", "特斯拉", "大众帕萨特", "丰田凯美瑞", "理想L7", "本田雅阁", "蔚来ET5",
                 "奥迪A6", "宝马3系", "小米SU7", "五菱宏光", "吉利星越"],
        "acts_en": ["buy a {v}|bought a {v}", "trade my car in for a {v}|traded my car in for a {v}",
                    "lease a {v}|leased a {v}", "get a {v}|got a {v}", "pick up a {v}|picked up a {v}"],
        "states_en": ["I drive a {v}|{who} drives a {v}", "my car is a {v}|{whose} car is a {v}",
                      "I get around in a {v}|{who} gets around in a {v}"],
        "acts_zh": ["买了辆{v}", "提了一辆{v}", "把车换成了{v}", "换了台{v}", "入手了{v}"],
        "states_zh": ["开{v}", "的车是{v}", "开的是一辆{v}", "平时开{v}"],
    },
    "phone": {
        "change_en": ["got a new phone", "my old phone died"],
        "change_zh": ["换手机了", "旧手机坏了"],
        "v_en": ["Pixel 8", "iPhone 15", "Galaxy S24", "OnePlus 12", "Xperia 5", "Moto G", "Fairphone",
                 "Nothing Phone", "iPhone SE", "Galaxy Fold"],
        "v_zh": ["华为Mate60", "小米14", "iPhone15", "OPPO Find X7", "vivo X100", "荣耀Magic6", "三星S24",
                 "一加12", "红米K70", "华为P70"],
        "acts_en": ["switch to a {v}|switched to a {v}", "buy a {v}|bought a {v}",
                    "upgrade to a {v}|upgraded to a {v}", "get a {v}|got a {v}"],
        "states_en": ["I use a {v}|{who} uses a {v}", "my phone is a {v}|{whose} phone is a {v}",
                      "I'm on a {v}|{who} is on a {v}"],
        "acts_zh": ["换了{v}", "把手机换成了{v}", "买了部{v}", "入手了一台{v}"],
        "states_zh": ["用{v}", "的手机是{v}", "用的是{v}手机", "一直用{v}"],
    },
    "partner": {
        "change_en": ["I broke up with my ex", "I'm in a new relationship"],
        "change_zh": ["分手了", "谈恋爱了"],
        "v_en": ["Marco", "Priya", "Jonas", "Emily", "Kenji", "Sofia", "Liam", "Hannah", "Mateo", "Chloe"],
        "v_zh": ["小雨", "阿杰", "王磊", "林晓", "陈晨", "思思", "大伟", "婷婷", "张帆", "小北"],
        "acts_en": ["marry {v}|married {v}", "start dating {v}|started dating {v}",
                    "get engaged to {v}|got engaged to {v}", "move in with {v}|moved in with {v}"],
        "states_en": ["my husband is {v}|{whose} husband is {v}", "my husband's name is {v}|{whose} husband's name is {v}",
                      "I'm married to {v}|{who} is married to {v}", "my fiancée is {v}|{whose} fiancée is {v}", "my wife is called {v}|{whose} wife is called {v}",
                      "my girlfriend's name is {v}|{whose} girlfriend's name is {v}",
                      "my boyfriend is {v}|{whose} boyfriend is {v}", "my partner is {v}|{whose} partner is {v}",
                      "I'm seeing someone called {v}|{who} is seeing someone called {v}"],
        "acts_zh": ["和{v}结婚了", "跟{v}在一起了", "和{v}订婚了", "交了个对象叫{v}"],
        "states_zh": ["的老公叫{v}", "的老婆是{v}", "的女朋友叫{v}", "的男朋友是{v}", "的对象叫{v}", "老公叫{v}",
                      "老婆的名字是{v}", "男朋友叫{v}", "女朋友是{v}", "跟{v}是夫妻"],
    },
    "school": {
        "change_en": ["I changed schools", "I started uni"],
        "change_zh": ["转学了", "开学了"],
        "v_en": ["Fudan University", "UCLA", "the University of Leeds", "Tsinghua", "McGill", "NYU",
                 "Kyoto University", "a community college", "Imperial College", "Monash"],
        "v_zh": ["复旦大学", "武汉大学", "中山大学", "南开大学", "厦门大学", "北京师范大学", "四中",
                 "同济大学", "一所职业学院", "华东师范大学"],
        "acts_en": ["transfer to {v}|transferred to {v}", "enrol at {v}|enrolled at {v}",
                    "get into {v}|got into {v}", "start studying at {v}|started studying at {v}"],
        "states_en": ["I study at {v}|{who} studies at {v}", "I'm a student at {v}|{who} is a student at {v}",
                      "I go to {v}|{who} goes to {v}", "I'm doing my master's at {v}|{who} is doing a master's at {v}"],
        "acts_zh": ["考上了{v}", "转学到了{v}", "被{v}录取了", "去{v}读研了"],
        "states_zh": ["在{v}读书", "在{v}上学", "是{v}的学生", "在{v}读研究生"],
    },
    "diet": {
        "change_en": ["I changed my diet"],
        "change_zh": ["改了饮食习惯"],
        "v_en": ["vegetarian", "vegan", "keto", "gluten-free", "pescatarian", "dairy-free", "low-carb"],
        "v_zh": ["素食", "纯素", "生酮饮食", "低碳水", "无麸质饮食", "轻断食", "全素"],
        "acts_en": ["go {v}|went {v}", "switch to a {v} diet|switched to a {v} diet",
                    "start eating {v}|started eating {v}", "give up meat|gave up meat"],
        "states_en": ["I'm {v}|{who} is {v}", "I eat {v}|{who} eats {v}", "I follow a {v} diet|{who} follows a {v} diet"],
        "acts_zh": ["开始吃{v}了", "改成{v}了", "戒了肉", "改吃{v}了"],
        "states_zh": ["吃{v}", "是{v}者", "一直{v}", "坚持{v}"],
    },
    "hometown": {
        "v_en": ["Harbin", "Glasgow", "Naples", "Busan", "Cork", "Kunming", "Adelaide", "Porto", "Tulsa"],
        "v_zh": ["哈尔滨", "昆明", "汕头", "洛阳", "桂林", "大连", "温州", "兰州", "无锡"],
        "acts_en": ["grow up in {v}|grew up in {v}", "be born in {v}|was born in {v}"],
        "states_en": ["I'm from {v}|{who} is from {v}", "my hometown is {v}|{whose} hometown is {v}",
                      "I'm originally from {v}|{who} is originally from {v}"],
        "acts_zh": ["在{v}长大", "出生在{v}"],
        "states_zh": ["老家在{v}", "是{v}人", "的家乡是{v}", "来自{v}"],
    },
    "favourite_food": {
        "change_en": ["my taste changed"],
        "change_zh": ["口味变了"],
        "v_en": ["ramen", "tacos", "lasagne", "pho", "dim sum", "paella", "sushi", "biryani", "pierogi"],
        "v_zh": ["火锅", "烤鸭", "小龙虾", "肠粉", "酸辣粉", "煲仔饭", "羊肉串", "臭豆腐", "生煎包"],
        "acts_en": ["fall in love with {v}|fell in love with {v}", "get hooked on {v}|got hooked on {v}"],
        "states_en": ["my favourite food is {v}|{whose} favourite food is {v}", "my go-to meal is {v}|{whose} go-to meal is {v}",
                      "my favourite dish is {v}|{whose} favourite dish is {v}", "I could eat {v} every day|{who} could eat {v} every day", "I love {v} more than anything|{who} loves {v} more than anything",
                      "{v} is my all-time favourite dish|{v} is {whose} all-time favourite dish",
                      "nothing beats {v} for me|nothing beats {v} for {whom}"],
        "acts_zh": ["爱上了{v}", "迷上了吃{v}"],
        "states_zh": ["最爱吃{v}", "最喜欢的食物是{v}", "最喜欢吃{v}", "觉得{v}是天下第一美食"],
    },
    "favourite_drink": {
        "change_en": ["I quit my old drink"],
        "change_zh": ["戒了以前喝的"],
        "v_en": ["oat latte", "green tea", "kombucha", "espresso", "matcha", "cold brew", "chai", "ginger ale"],
        "v_zh": ["冰美式", "乌龙茶", "燕麦拿铁", "椰子水", "普洱", "柠檬茶", "抹茶拿铁", "豆浆"],
        "acts_en": ["get addicted to {v}|got addicted to {v}", "switch to {v} every morning|switched to {v} every morning"],
        "states_en": ["my favourite drink is {v}|{whose} favourite drink is {v}", "my go-to drink is {v}|{whose} go-to drink is {v}",
                      "I'm obsessed with {v}|{who} is obsessed with {v}",
                      "I drink {v} every morning|{who} drinks {v} every morning",
                      "I can't start the day without {v}|{who} can't start the day without {v}"],
        "acts_zh": ["爱上了喝{v}", "每天改喝{v}了"],
        "states_zh": ["最爱喝{v}", "每天早上都要喝{v}", "最喜欢的饮料是{v}", "离不开{v}"],
    },
    "team": {
        "change_en": ["I switched teams"],
        "change_zh": ["换了支持的球队"],
        "v_en": ["the Celtics", "Arsenal", "the Yankees", "Liverpool", "the Bulls", "Real Madrid",
                 "the Packers", "Bayern", "the Warriors"],
        "v_zh": ["广东宏远", "上海申花", "湖人", "皇马", "巴萨", "曼联", "北京国安", "勇士", "辽宁队"],
        "acts_en": ["start supporting {v}|started supporting {v}", "switch allegiance to {v}|switched allegiance to {v}"],
        "states_en": ["I support {v}|{who} supports {v}", "I'm a big fan of {v}|{who} is a big fan of {v}",
                      "I root for {v}|{who} roots for {v}", "my team is {v}|{whose} team is {v}",
                      "I'm a die-hard {bare} fan|{who} is a die-hard {bare} fan", "I'm a lifelong {bare} supporter|{who} is a lifelong {bare} supporter"],
        "acts_zh": ["开始支持{v}了", "改粉{v}了", "成了{v}的球迷"],
        "states_zh": ["是{v}的球迷", "支持{v}", "是{v}的死忠", "每场都看{v}的比赛"],
    },
    "instrument": {
        "change_en": ["I quit my old instrument"],
        "change_zh": ["换了乐器"],
        "v_en": ["cello", "violin", "drums", "saxophone", "harp", "ukulele", "trumpet", "bass guitar", "flute"],
        "v_zh": ["古筝", "二胡", "架子鼓", "萨克斯", "钢琴", "小提琴", "琵琶", "长笛", "吉他"],
        "acts_en": ["take up the {v}|took up the {v}", "start learning the {v}|started learning the {v}",
                    "pick up the {v}|picked up the {v}", "switch to the {v}|switched to the {v}"],
        "states_en": ["I play the {v}|{who} plays the {v}", "I'm learning the {v}|{who} is learning the {v}",
                      "I take {v} lessons|{who} takes {v} lessons"],
        "acts_zh": ["开始学{v}了", "报了{v}班", "改学{v}了", "学起了{v}"],
        "states_zh": ["在学{v}", "会弹{v}", "每周上{v}课", "在练{v}"],
    },
    "computer": {
        "change_en": ["my old laptop died", "I got a new computer"],
        "change_zh": ["换电脑了", "旧电脑坏了"],
        "v_en": ["MacBook Pro", "ThinkPad T14", "Dell XPS", "Surface Laptop", "Framework laptop", "gaming PC",
                 "MacBook Air", "Chromebook"],
        "v_zh": ["MacBook Pro", "联想小新", "华为MateBook", "戴尔XPS", "拯救者", "ThinkPad", "小米笔记本",
                 "台式机"],
        "acts_en": ["buy a {v}|bought a {v}", "switch to a {v}|switched to a {v}",
                    "upgrade to a {v}|upgraded to a {v}", "replace my laptop with a {v}|replaced my laptop with a {v}"],
        "states_en": ["my laptop is a {v}|{whose} laptop is a {v}", "I work on a {v}|{who} works on a {v}",
                      "my computer is a {v}|{whose} computer is a {v}"],
        "acts_zh": ["把电脑换成了{v}", "买了台{v}", "换了{v}笔记本", "新配了一台{v}"],
        "states_zh": ["的电脑是{v}", "用{v}办公", "的笔记本是{v}", "一直用{v}"],
    },
    "commute": {
        "change_en": ["my commute changed", "since the move"],
        "change_zh": ["通勤方式变了", "搬家以后"],
        "v_en": ["by bike", "by subway", "by bus", "on foot", "by car", "by tram", "by train", "by scooter"],
        "v_zh": ["骑车", "坐地铁", "坐公交", "走路", "开车", "骑电动车", "坐轻轨", "打车"],
        "acts_en": ["start going to work {v}|started going to work {v}", "switch to commuting {v}|switched to commuting {v}"],
        "states_en": ["I get to work {v}|{who} gets to work {v}", "I commute {v}|{who} commutes {v}",
                      "I cycle to work|{who} cycles to work", "I walk to the office|{who} walks to the office",
                      "I drive to work|{who} drives to work", "I take the subway to work|{who} takes the subway to work",
                      "I ride my bike to work|{who} rides a bike to work", "I take the {t} to work|{who} takes the {t} to work",
                      "I go to the office {v}|{who} goes to the office {v}"],
        "acts_zh": ["改成{v}上班了", "开始{v}上下班了", "换成{v}通勤了"],
        "states_zh": ["每天{v}上班", "{v}去公司", "平时{v}通勤", "上班都是{v}"],
    },
}  # fmt: skip
SLOTS = tuple(_S)
"""The slots the classifier knows, in order."""

_WHO_EN = ["my sister", "my brother", "my mum", "my dad", "my friend", "my colleague", "my roommate",
           "my neighbour", "my boss", "he", "she", "Tom", "Lisa", "my cousin", "our teacher", "a guy at work"]  # fmt: skip
_WHO_ZH = ["我妹妹", "我哥", "我妈", "我爸", "我朋友", "我同事", "我室友", "我邻居", "我老板", "他", "她",
           "小王", "我表姐", "我们老师", "隔壁老李"]  # fmt: skip
_TIME_EN = [
    "",
    "",
    " last month",
    " recently",
    " this year",
    " a few weeks ago",
    " in the spring",
    " yesterday",
]
_TIME_ZH = ["", "", "上个月", "最近", "今年", "前几天", "去年年底", "刚刚"]
_NOW_EN = ["", "", " now", " these days", " nowadays", " at the moment"]
_NOW_ZH = ["", "", "现在", "如今", "这阵子", "目前"]
_TRANSPORT_EN = ["ferry", "bus", "train", "subway", "tram", "shuttle", "metro", "night bus"]
_WOULD_EN = [
    "I would be happier",
    "life would be easier",
    "that would be fun",
    "I'd finally relax",
    "I'd be so much calmer",
    "I'd learn something new",
    "everything would change",
]
_ROUTINES = [
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
_SKILLS = [
    ("攀岩", "climbing"),
    ("游泳", "to swim"),
    ("日语", "Japanese"),
    ("做饭", "to cook"),
    ("编程", "to code"),
    ("开车", "to drive"),
    ("滑雪", "to ski"),
    ("画画", "to paint"),
]
_SELF = [
    ("新来的", "new here"),
    ("单身", "single"),
    ("左撇子", "left-handed"),
    ("夜猫子", "a night owl"),
    ("独生子", "an only child"),
    ("急性子", "impatient"),
    ("社恐", "shy"),
    ("第一次来", "here for the first time"),
]
_EPISODES = {  # once is no slot: what happened today with a slot's value
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
_TODAY_ZH = ["今天", "刚才", "昨天", "今天第3次", "中午", "周末"]
_TODAY_EN = ["today", "this morning", "yesterday", "just now", "for the third time today"]
_PLAN_EN = ["planning", "hoping", "thinking about whether", "going", "considering whether", "about"]
_LATER_EN = [" next year", " soon", " someday", "", " after the summer"]
_PLAN_ZH = ["打算", "想", "准备", "计划", "考虑", "要"]
_LATER_ZH = ["明年", "以后", "过两年", "", "过阵子", "下个月"]
_OPEN_EN = ["", "", "", "btw ", "oh, ", "guess what, ", "so ", "fun fact: ", "just so you know, ", "update: "]
_OPEN_ZH = ["", "", "", "跟你说，", "对了，", "告诉你个事，", "话说", "更新一下，"]
_TAIL_EN = [
    "",
    ".",
    "!",
    ", it's been a big change.",
    " and I love it.",
    ", long story.",
    " lol",
    ", finally.",
]
_TAIL_ZH = ["", "。", "！", "，感觉还不错。", "，有点不习惯。", "～", "，挺开心的。", "，说来话长。"]
_CHAT_EN = ["I had {food} for lunch today", "watched {show} last night", "the weather is awful today",
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
_CHAT_ZH = ["今天中午吃了{food}", "昨晚看了{show}", "今天天气太差了", "下班好累啊", "去商场逛了逛",
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
_FILL = {
    "food": ["pizza", "noodles", "a salad", "dumplings", "饺子", "面条", "沙拉", "包子"],
    "show": ["a documentary", "a comedy", "一部纪录片", "一部喜剧"],
    "thing": ["cats", "peanuts", "spiders", "history", "猫毛", "花生", "蜘蛛", "历史"],
    "month": ["May", "October", "五月", "十月"],
    "name": ["Max", "Bella", "Sam", "豆豆", "旺财", "小李"],
    "drink": ["lemonade", "cola", "奶茶", "可乐"],
    "city": ["Rome", "Kyoto", "罗马", "京都"],
    "hobby": ["pottery", "knitting", "board games", "hiking", "陶艺", "织毛衣", "桌游", "爬山"],
}


def _forms(phrase: str) -> tuple[str, str]:
    first, _, other = phrase.partition("|")
    return first, other


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


_ADJECTIVE_EN = ["", "", "", "new ", "secondhand ", "shiny ", "refurbished "]
_DESCRIBED = ("car", "phone", "computer")


def _english(slot: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    spec = _S[slot]
    for plain in spec["v_en"]:
        value = f"{rng.choice(_ADJECTIVE_EN)}{plain}" if slot in _DESCRIBED else plain
        for act in spec["acts_en"]:
            base, past = (p.format(v=value) for p in _forms(act))
            mine = past
            yield f"I {mine}{rng.choice(_TIME_EN)}", slot
            yield f"I just {mine}", slot
            if slot != "hometown":
                yield f"I've finally {_perfect(past)}", slot
            yield f"{rng.choice(_WHO_EN)} {_theirs(past)}{rng.choice(_TIME_EN)}", NONE
            yield f"I never {mine}", NONE
            yield f"I didn't {base}", NONE
            yield f"if I {mine}{rng.choice([',', ''])} {rng.choice(_WOULD_EN)}", NONE
            yield f"I wish I could {base}", NONE
            yield f"I'm {rng.choice(_PLAN_EN)} to {base}{rng.choice(_LATER_EN)}", NONE
            yield f"{rng.choice(['maybe one day', 'soon', 'next month', 'at some point'])} I'll {base}", NONE
            yield f"should I {base}?", NONE
        for state in spec["states_en"]:
            mine, theirs = _forms(state)
            t, bare = rng.choice(_TRANSPORT_EN), value.removeprefix("the ")
            mine = mine.format(v=value, t=t, bare=bare)
            theirs = theirs.format(v=value, t=t, bare=bare, who="{who}", whose="{whose}", whom="{whom}")
            yield f"{mine}{rng.choice(_NOW_EN)}", slot
            yield f"these days {mine}", slot
            who = rng.choice(_WHO_EN)
            whose = f"{who}'s" if who not in ("he", "she") else {"he": "his", "she": "her"}[who]
            whom = {"he": "him", "she": "her"}.get(who, who)
            yield theirs.format(who=who, whose=whose, whom=whom), NONE
            yield f"I don't think {mine}", NONE
            yield f"it's not true that {mine}", NONE
            yield f"if only {mine}", NONE
            yield f"do you think {mine}?", NONE
            other = (
                rng.choice(spec["states_en"])
                .partition("|")[0]
                .format(v=rng.choice(spec["v_en"]), t=t, bare=bare)
            )
            yield (
                f"{rng.choice(['no longer', 'not anymore:', 'things changed,'])} {mine}{rng.choice(_NOW_EN)}",
                slot,
            )
            yield f"used to be that {other}, but {mine} now", slot
        for change in spec.get("change_en", []):
            now = rng.choice(spec["states_en"]).partition("|")[0].format(v=value, t=t, bare=bare)
            yield f"{change}{rng.choice(_TIME_EN)}, {now}", slot


def _perfect(past: str) -> str:
    irregular = {"became": "become", "got": "gotten", "took": "taken", "bought": "bought", "went": "gone",
                 "gave": "given", "fell": "fallen", "was": "been", "grew": "grown"}  # fmt: skip
    verb, _, rest = past.partition(" ")
    return f"{irregular.get(verb, verb)} {rest}".strip()


def _theirs(past: str) -> str:
    return past.replace("my ", "their ")


def _chinese(slot: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    spec = _S[slot]
    for value in spec["v_zh"]:
        for act in spec["acts_zh"]:
            done = act.format(v=value)
            bare = done.replace("了", "", 1)
            yield f"我{rng.choice(_TIME_ZH)}{done}", slot
            yield f"{rng.choice(_TIME_ZH)}我{done}", slot
            yield f"{rng.choice(_WHO_ZH)}{rng.choice(_TIME_ZH)}{done}", NONE
            yield f"我从来没{bare}过", NONE
            yield f"我没有{bare}", NONE
            yield f"如果我{bare}就好了", NONE
            yield f"要是我{bare}，{rng.choice(['会开心点', '生活会方便很多', '应该挺好玩'])}", NONE
            yield f"我{rng.choice(_PLAN_ZH)}{rng.choice(_LATER_ZH)}{bare}", NONE
            yield f"{rng.choice(_LATER_ZH)}我{rng.choice(_PLAN_ZH)}{bare}", NONE
            yield f"我要不要{bare}？", NONE
        for state in spec["states_zh"]:
            said = state.format(v=value)
            yield f"我{rng.choice(_NOW_ZH)}{said}", slot
            yield f"{rng.choice(_NOW_ZH)}我{said}", slot
            yield f"{rng.choice(_WHO_ZH)}{rng.choice(_NOW_ZH)}{said}", NONE
            yield f"我不{said.removeprefix('是')}" if said.startswith("是") else f"我不{said}", NONE
            yield f"要是我{said}就好了", NONE
            yield f"你觉得我{said}吗？", NONE
            other = rng.choice(spec["states_zh"]).format(v=rng.choice(spec["v_zh"]))
            yield f"我不再{other}了，{rng.choice(_NOW_ZH)}{said}", slot
            yield f"以前{other}，{rng.choice(['现在', '如今', '这回'])}{said}", slot
        for change in spec.get("change_zh", []):
            yield (
                f"{rng.choice(['我', '', '又'])}{change}，{rng.choice(['现在', '这回', '如今'])}{said}",
                slot,
            )


_CONTRACTIONS = (
    (" is a ", "'s a "),
    (" is an ", "'s an "),
    ("I am ", "I'm "),
    ("I have ", "I've "),
    (" is ", "'s "),
)


def _contract(text: str, rng: random.Random) -> str:
    """English as typed in a chat: contractions half of the time."""
    for full, short in _CONTRACTIONS:
        if full in text and rng.random() < 0.5:
            text = text.replace(full, short, 1)
    return text


def corpus(seed: int = 7) -> list[tuple[str, str]]:
    """The labelled statements ``(text, slot or "none")``, the same for the same seed."""
    rng = random.Random(seed)
    rows: list[tuple[str, str]] = []

    def aside(templates: list[str], joiner: str) -> str:
        if rng.random() < 0.5:
            return ""
        return joiner + rng.choice(templates).format(**{k: rng.choice(v) for k, v in _FILL.items()})

    for slot in SLOTS:
        for text, label in _english(slot, rng):
            said = _contract(
                f"{rng.choice(_OPEN_EN)}{text}{aside(_CHAT_EN, ', ')}{rng.choice(_TAIL_EN)}", rng
            )
            rows.append((_cap(said), label))
        for text, label in _chinese(slot, rng):
            rows.append((f"{rng.choice(_OPEN_ZH)}{text}{aside(_CHAT_ZH, '，')}{rng.choice(_TAIL_ZH)}", label))
    for slot, (zh, en) in _EPISODES.items():
        for value in _S[slot]["v_zh"]:
            for _ in range(2):
                rows.append(
                    (
                        f"{rng.choice(_TODAY_ZH)}{zh.format(v=value)}{aside(_CHAT_ZH, '，')}{rng.choice(_TAIL_ZH)}",
                        NONE,
                    )
                )
        for value in _S[slot]["v_en"]:
            for _ in range(2):
                said = f"I {en.format(v=value)} {rng.choice(_TODAY_EN)}{aside(_CHAT_EN, ', ')}{rng.choice(_TAIL_EN)}"
                rows.append((_cap(said), NONE))
    for mode in _S["commute"]["v_zh"]:  # once is no habit: a trip today sets no commute
        for _ in range(6):
            when, place = (
                rng.choice(["今天", "昨天", "刚才", "周末"]),
                rng.choice(["公司", "机场", "医院", "商场", "学校"]),
            )
            rows.append((f"我{when}{mode}去{place}{aside(_CHAT_ZH, '，')}", NONE))
    for mode in _S["commute"]["v_en"]:
        for _ in range(6):
            when, place = (
                rng.choice(["today", "yesterday", "this morning"]),
                rng.choice(["the office", "the airport"]),
            )
            rows.append((_cap(f"I went to {place} {mode} {when}{aside(_CHAT_EN, ', ')}"), NONE))
    for skill_zh, skill_en in _SKILLS:  # learning a skill that is no instrument
        for _ in range(3):
            rows.append(
                (f"我{rng.choice(['在学', '最近在学', '开始学'])}{skill_zh}{aside(_CHAT_ZH, '，')}", NONE)
            )
            rows.append((_cap(f"I'm learning {skill_en}{aside(_CHAT_EN, ', ')}"), NONE))
    for about_zh, about_en in _SELF:  # what the speaker is, no slot: new here, single, left-handed
        for _ in range(3):
            rows.append((f"{rng.choice(_OPEN_ZH)}我是{about_zh}{aside(_CHAT_ZH, '，')}", NONE))
            rows.append((_cap(f"{rng.choice(_OPEN_EN)}I'm {about_en}{aside(_CHAT_EN, ', ')}"), NONE))
    for routine in _ROUTINES:  # a habit that is no slot: swimming every morning is no drink
        for _ in range(4):
            when_zh, when_en = rng.choice(
                [
                    ("每天早上", "every morning"),
                    ("每天晚上", "every night"),
                    ("每周六", "every Saturday"),
                    ("平时", "usually"),
                ]
            )
            rows.append((f"我{when_zh}{routine[0]}{aside(_CHAT_ZH, '，')}", NONE))
            rows.append((_cap(f"I {routine[1]} {when_en}{aside(_CHAT_EN, ', ')}"), NONE))
    for hobby in ["pottery", "jazz", "sci-fi", "yoga", "anime", "baking", "crosswords", "cycling"]:
        for _ in range(4):
            rows.append(
                (_cap(f"I'm a {rng.choice(['big', 'huge', ''])} fan of {hobby}{aside(_CHAT_EN, ', ')}"), NONE)
            )
    for template in _CHAT_EN + _CHAT_ZH:
        for _ in range(12):
            text = template.format(**{k: rng.choice(v) for k, v in _FILL.items()})
            opener, tail = (_OPEN_ZH, _TAIL_ZH) if template in _CHAT_ZH else (_OPEN_EN, _TAIL_EN)
            rows.append((_cap(f"{rng.choice(opener)}{text}{rng.choice(tail)}"), NONE))
    return rows

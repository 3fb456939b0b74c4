"""Data for the retention bench: what a scripted user tells the persona, and what it asks later.

The data is split once, here, into two halves with their own facts, updates and non-update
statements: ``TUNE`` may be used while tuning the engine, ``HELD_OUT`` must never be. The halves
share no sentence, value or phrasing pattern, and were written without reading the engine's rules,
so the held-out half measures whether the engine generalises to phrasings it has never seen.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Probe:
    text: str
    lang: str  # "zh" or "en"


@dataclass(frozen=True)
class Fact:
    name: str  # unique within its half, e.g. "home", "cat_name"
    lang: str  # language the user states it in
    statement: str  # what the user says, once, in a chat
    key: str  # a short string inside `statement` that shows the fact was recalled
    probes: tuple[Probe, ...]  # exactly two questions: one zh, one en, asked much later
    slot: str | None = None  # one of SLOTS below when the fact is a single-valued slot, else None


@dataclass(frozen=True)
class Update:
    name: str  # the Fact.name whose value changes
    lang: str
    statement: str  # the user says the value changed / what is true now
    key: str  # the NEW value, inside `statement`
    probes: tuple[Probe, ...]  # one zh, one en, asking for the CURRENT value


@dataclass(frozen=True)
class NonUpdate:
    kind: str  # "third_person" | "negation" | "hypothetical" | "question" | "plan"
    lang: str
    text: str  # mentions a slot topic but must NOT change the user's own current value
    slot: str  # the slot it could be confused with


@dataclass(frozen=True)
class Script:
    facts: tuple[Fact, ...]
    updates: tuple[Update, ...]
    non_updates: tuple[NonUpdate, ...]


SLOTS = ("home", "job", "car", "phone", "partner", "school", "diet", "hometown",
         "favourite_food", "favourite_drink", "team", "instrument", "computer", "commute")  # fmt: skip


def _ask(zh: str, en: str) -> tuple[Probe, ...]:
    """The two probes of a fact or update: one Chinese question, one English."""
    return (Probe(zh, "zh"), Probe(en, "en"))


# ---------------------------------------------------------------------------------------------
# TUNE: plain, casual chat; the engine may be tuned on this half.
# ---------------------------------------------------------------------------------------------

_TUNE_FACTS = (
    # single-valued slots
    Fact(
        "home",
        "zh",
        "跟你说，我现在住在苏州，房租比以前便宜多了。",
        "苏州",
        _ask("我住在哪个城市？", "Which city do I live in?"),
        slot="home",
    ),
    Fact(
        "job",
        "en",
        "I work as a dental hygienist at a clinic downtown, it's fine most days.",
        "dental hygienist",
        _ask("我是做什么工作的？", "What do I do for a living?"),
        slot="job",
    ),
    Fact(
        "car",
        "zh",
        "周末开着我那辆斯柯达去郊外兜风，特别解压。",
        "斯柯达",
        _ask("我开的是什么车？", "What car do I drive?"),
        slot="car",
    ),
    Fact(
        "phone",
        "en",
        "btw my phone's a Pixel 7, the camera is honestly the best part.",
        "Pixel 7",
        _ask("我用的是什么手机？", "Which phone do I have?"),
        slot="phone",
    ),
    Fact(
        "partner",
        "zh",
        "我老婆叫林晓雯，我们结婚三年了。",
        "林晓雯",
        _ask("我爱人叫什么名字？", "What's my wife's name?"),
        slot="partner",
    ),
    Fact(
        "school",
        "en",
        "I'm doing my master's at the University of Edinburgh, second year and drowning in readings.",
        "Edinburgh",
        _ask("我在哪所大学读书？", "Which university am I studying at?"),
        slot="school",
    ),
    Fact(
        "diet",
        "zh",
        "吃素已经五年了，而且是纯素，蛋和奶也不碰。",
        "纯素",
        _ask("我平时饮食上有什么讲究？", "What kind of diet do I follow?"),
        slot="diet",
    ),
    Fact(
        "favourite_food",
        "en",
        "Honestly nothing beats a big bowl of laksa, it's my all-time favourite.",
        "laksa",
        _ask("我最喜欢吃什么？", "What's my favourite food?"),
        slot="favourite_food",
    ),
    Fact(
        "favourite_drink",
        "zh",
        "我最爱喝冻柠茶，一天不喝浑身难受。",
        "冻柠茶",
        _ask("我最喜欢喝的饮料是什么？", "What's my favourite drink?"),
        slot="favourite_drink",
    ),
    Fact(
        "team",
        "en",
        "I've supported Arsenal since I was a kid, never miss a north London derby.",
        "Arsenal",
        _ask("我支持哪支球队？", "Which football team do I support?"),
        slot="team",
    ),
    Fact(
        "instrument",
        "zh",
        "最近在学大提琴，每周六上一节课，手指都磨出茧了。",
        "大提琴",
        _ask("我在学什么乐器？", "What instrument am I learning?"),
        slot="instrument",
    ),
    Fact(
        "computer",
        "en",
        "My laptop's a ThinkPad X1 Carbon, work gave it to me but I use it for everything.",
        "ThinkPad",
        _ask("我用的是什么电脑？", "What laptop do I use?"),
        slot="computer",
    ),
    Fact(
        "commute",
        "zh",
        "每天骑电动车上班，不堵车的话二十分钟就到。",
        "电动车",
        _ask("我每天怎么去上班？", "How do I get to work?"),
        slot="commute",
    ),
    Fact(
        "hometown",
        "en",
        "I'm originally from Cork, lived there till I left for uni.",
        "Cork",
        _ask("我老家是哪里的？", "Where am I originally from?"),
        slot="hometown",
    ),
    # other personal facts, Chinese
    Fact(
        "cat_name",
        "zh",
        "家里那只橘猫叫年糕，胖得快抱不动了。",
        "年糕",
        _ask("我的猫叫什么名字？", "What's my cat called?"),
    ),
    Fact(
        "birthday",
        "zh",
        "我生日是十一月二十三号，到时候记得祝我生日快乐哦。",
        "十一月二十三",
        _ask("我的生日是哪天？", "When is my birthday?"),
    ),
    Fact(
        "fruit_allergy",
        "zh",
        "我对芒果过敏，吃一口嘴巴就肿起来。",
        "芒果",
        _ask("我对哪种水果过敏？", "Which fruit am I allergic to?"),
    ),
    Fact(
        "blood_type",
        "zh",
        "献血站老给我打电话，因为我是熊猫血。",
        "熊猫血",
        _ask("我是什么血型？", "What's my blood type?"),
    ),
    Fact(
        "sister",
        "zh",
        "我有个妹妹叫周可欣，今年读高三，压力特别大。",
        "周可欣",
        _ask("我妹妹叫什么？", "What's my younger sister's name?"),
    ),
    Fact(
        "fear",
        "zh",
        "我有恐高症，站在二楼阳台往下看都腿软。",
        "恐高",
        _ask("我害怕什么？", "What am I afraid of?"),
    ),
    Fact(
        "climbing",
        "zh",
        "周末一般去攀岩，玩了两年，手臂粗了一圈。",
        "攀岩",
        _ask("我周末有什么运动爱好？", "What sport do I do at weekends?"),
    ),
    Fact(
        "book",
        "zh",
        "我最喜欢的书是《百年孤独》，前后看了四遍。",
        "百年孤独",
        _ask("我最喜欢哪本书？", "What's my favourite book?"),
    ),
    Fact(
        "iceland",
        "zh",
        "去年十月去了冰岛，运气好看到了极光。",
        "冰岛",
        _ask("我去年十月去哪儿旅行了？", "Where did I travel last October?"),
    ),
    Fact(
        "team_lead",
        "zh",
        "我们组长叫老郑，人特别好，从来不催我们加班。",
        "老郑",
        _ask("我的组长叫什么？", "What's my team leader called?"),
    ),
    Fact(
        "son",
        "zh",
        "儿子小名叫豆豆，今年上幼儿园中班了。",
        "豆豆",
        _ask("我儿子的小名是什么？", "What's my son's nickname?"),
    ),
    Fact(
        "anniversary",
        "zh",
        "结婚纪念日是五月二十号，今年想给她个惊喜。",
        "五月二十",
        _ask("我的结婚纪念日是哪天？", "When is my wedding anniversary?"),
    ),
    Fact(
        "medicine",
        "zh",
        "甲状腺有点问题，每天早上要吃一片优甲乐。",
        "优甲乐",
        _ask("我每天早上吃什么药？", "What medication do I take every morning?"),
    ),
    Fact(
        "shoe_size",
        "zh",
        "我穿四十三码的鞋，网上买鞋老是断码。",
        "四十三码",
        _ask("我穿多大的鞋？", "What's my shoe size?"),
    ),
    Fact(
        "parents_dog",
        "zh",
        "我爸妈家养了条土狗，叫旺财，见人就摇尾巴。",
        "旺财",
        _ask("我爸妈家的狗叫什么？", "What's my parents' dog called?"),
    ),
    Fact(
        "film",
        "zh",
        "最喜欢的电影还是《大话西游》，每次看结尾都想哭。",
        "大话西游",
        _ask("我最喜欢的电影是哪部？", "What's my favourite film?"),
    ),
    Fact(
        "language",
        "zh",
        "我在自学西班牙语，多邻国已经打卡三百天了。",
        "西班牙语",
        _ask("我在自学哪门外语？", "Which foreign language am I teaching myself?"),
    ),
    Fact(
        "surgery",
        "zh",
        "前年做过阑尾手术，肚子上还留着个小疤。",
        "阑尾",
        _ask("我前年做过什么手术？", "What operation did I have the year before last?"),
    ),
    Fact(
        "singer",
        "zh",
        "超喜欢陈奕迅，他的演唱会我去过三次。",
        "陈奕迅",
        _ask("我最喜欢哪个歌手？", "Which singer am I a big fan of?"),
    ),
    Fact(
        "zodiac",
        "zh",
        "我是天蝎座的，朋友都说我记仇。",
        "天蝎座",
        _ask("我是什么星座？", "What's my star sign?"),
    ),
    # other personal facts, English
    Fact(
        "dog_name",
        "en",
        "My dog's name is Biscuit, he's a beagle and an absolute menace.",
        "Biscuit",
        _ask("我的狗叫什么？", "What's my dog called?"),
    ),
    Fact(
        "brother",
        "en",
        "I've got an older brother, Marcus, he's a firefighter.",
        "Marcus",
        _ask("我哥哥叫什么名字？", "What's my older brother's name?"),
    ),
    Fact(
        "drug_allergy",
        "en",
        "Quick heads up, I'm allergic to penicillin, found out the hard way.",
        "penicillin",
        _ask("我对哪种药过敏？", "Which medicine am I allergic to?"),
    ),
    Fact(
        "mum_birthday",
        "en",
        "My mum's birthday is on the 4th of March and I always forget it.",
        "4th of March",
        _ask("我妈妈的生日是哪天？", "When is my mum's birthday?"),
    ),
    Fact(
        "rubiks",
        "en",
        "I can solve a Rubik's cube in under a minute, it's my party trick.",
        "Rubik",
        _ask("我聚会上的拿手绝活是什么？", "What's my party trick?"),
    ),
    Fact(
        "pottery",
        "en",
        "I've been doing pottery on Thursday evenings, made a wonky mug last week.",
        "pottery",
        _ask("我每周四晚上去上什么课？", "What class do I take on Thursday evenings?"),
    ),
    Fact(
        "board_game",
        "en",
        "Favourite board game ever is Catan, we play it every Christmas.",
        "Catan",
        _ask("我最喜欢的桌游是什么？", "Which board game do I love most?"),
    ),
    Fact(
        "kyoto",
        "en",
        "We went to Kyoto in April, the cherry blossoms were unreal.",
        "Kyoto",
        _ask("我四月份去哪里看了樱花？", "Where did I see the cherry blossoms in April?"),
    ),
    Fact(
        "desk_buddy",
        "en",
        "My desk buddy at work is called Priya, she's hilarious.",
        "Priya",
        _ask("我工位旁边的同事叫什么？", "Who sits next to me at work?"),
    ),
    Fact(
        "daughter",
        "en",
        "My daughter Maisie just turned six, she wants a unicorn cake.",
        "Maisie",
        _ask("我女儿叫什么名字？", "What's my daughter's name?"),
    ),
    Fact(
        "marathon",
        "en",
        "Ran my first marathon in Valencia last December, four hours twelve.",
        "Valencia",
        _ask("我的第一个马拉松是在哪个城市跑的？", "In which city did I run my first marathon?"),
    ),
    Fact(
        "volunteer",
        "en",
        "Every other Saturday I volunteer at the Oxfam shop on the high street.",
        "Oxfam",
        _ask("我隔周周六在哪里做志愿者？", "Where do I volunteer on Saturdays?"),
    ),
    Fact(
        "asthma",
        "en",
        "I've got mild asthma so there's always a blue inhaler in my bag.",
        "asthma",
        _ask("我有什么慢性呼吸道疾病？", "What breathing condition do I have?"),
    ),
    Fact(
        "podcast",
        "en",
        "I listen to Hardcore History on long drives, the episodes are like six hours.",
        "Hardcore History",
        _ask("我开长途车时听什么播客？", "Which podcast do I listen to on long drives?"),
    ),
    Fact(
        "video_game",
        "en",
        "I'm completely hooked on Stardew Valley at the moment, my farm is huge.",
        "Stardew",
        _ask("我最近沉迷哪款游戏？", "What video game am I hooked on?"),
    ),
    Fact(
        "nan",
        "en",
        "My nan Dorothy is 94 and still does the crossword every morning.",
        "Dorothy",
        _ask("我奶奶叫什么名字？", "What's my grandmother's name?"),
    ),
    Fact(
        "tattoo",
        "en",
        "I have a tattoo of a compass on my left wrist, got it at nineteen.",
        "compass",
        _ask("我手腕上的纹身是什么图案？", "What's the tattoo on my wrist?"),
    ),
    Fact(
        "colour",
        "en",
        "Mustard yellow is my favourite colour, half my jumpers are that shade.",
        "mustard",
        _ask("我最喜欢什么颜色？", "What's my favourite colour?"),
    ),
    Fact(
        "plant",
        "en",
        "I've kept a fiddle-leaf fig alive for three years, his name is Gerald.",
        "Gerald",
        _ask("我那盆琴叶榕叫什么名字？", "What did I name my houseplant?"),
    ),
    Fact(
        "handedness",
        "en",
        "Fun detail about me: I'm left-handed, so scissors are my enemy.",
        "left-handed",
        _ask("我是左撇子还是右撇子？", "Which hand do I write with?"),
    ),
)

_TUNE_UPDATES = (
    Update(
        "home",
        "en",
        "Finally unpacked the last boxes in my new flat in Xiamen, the sea breeze here is unreal.",
        "Xiamen",
        _ask("我现在住在哪个城市？", "Where am I living at the moment?"),
    ),
    Update(
        "job",
        "zh",
        "我把诊所的工作辞了，现在在一家精品咖啡馆当咖啡师。",
        "咖啡师",
        _ask("我现在做什么工作？", "What's my job these days?"),
    ),
    Update(
        "car",
        "en",
        "Sold the Skoda last month, I'm driving a Mazda CX-5 now.",
        "Mazda",
        _ask("我现在开什么车？", "What am I driving now?"),
    ),
    Update(
        "phone",
        "zh",
        "手机换成了小米14，电池比以前耐用多了。",
        "小米14",
        _ask("我现在用哪款手机？", "What phone am I using now?"),
    ),
    Update(
        "partner",
        "en",
        "Xiaowen and I separated last spring. I've been seeing someone new, her name's Chloe.",
        "Chloe",
        _ask("我现在的对象是谁？", "Who's my partner now?"),
    ),
    Update(
        "school",
        "zh",
        "我转学了，这学期开始在香港大学上课。",
        "香港大学",
        _ask("我现在在哪所学校？", "Which university am I at now?"),
    ),
    Update(
        "diet",
        "en",
        "I've gone keto since last month, it's bacon and eggs every morning now.",
        "keto",
        _ask("我现在用的是哪种饮食方式？", "What diet am I on now?"),
    ),
    Update(
        "favourite_food",
        "zh",
        "我现在最爱的是螺蛳粉，闻着臭吃着香。",
        "螺蛳粉",
        _ask("我现在最爱吃什么？", "What's my favourite food these days?"),
    ),
    Update(
        "favourite_drink",
        "en",
        "These days my go-to is a flat white, can't function before my first one.",
        "flat white",
        _ask("我最近最爱喝什么？", "What's my favourite drink now?"),
    ),
    Update(
        "team",
        "zh",
        "不再支持以前那支球队了，改支持利物浦，被他们的打法圈粉了。",
        "利物浦",
        _ask("我现在支持哪支球队？", "Which team do I support now?"),
    ),
    Update(
        "instrument",
        "en",
        "Gave up the cello, I'm learning the ukulele instead, way easier on my fingers.",
        "ukulele",
        _ask("我现在在学什么乐器？", "What instrument am I learning now?"),
    ),
    Update(
        "computer",
        "zh",
        "电脑换了，公司那台还回去了，现在用自己买的MacBook Air。",
        "MacBook Air",
        _ask("我现在用什么电脑？", "What computer am I using now?"),
    ),
    Update(
        "commute",
        "en",
        "Since the move I take the ferry to work every morning, it's actually lovely.",
        "ferry",
        _ask("我现在怎么去上班？", "How do I commute now?"),
    ),
    # second changes of three slots
    Update(
        "home",
        "zh",
        "又搬家了，这回落脚大理，推开窗就是苍山。",
        "大理",
        _ask("我最近搬到哪里去了？", "Where do I live now, after the latest move?"),
    ),
    Update(
        "phone",
        "en",
        "My Xiaomi died in the rain, so I grabbed an iPhone 15 Pro and that's my phone now.",
        "iPhone 15",
        _ask("我现在的手机是什么型号？", "Which phone do I have now?"),
    ),
    Update(
        "team",
        "zh",
        "红军看腻了，从这个赛季起我铁了心支持拜仁。",
        "拜仁",
        _ask("我现在是哪支球队的球迷？", "Which club am I a fan of now?"),
    ),
)

_TUNE_NON_UPDATES = (
    NonUpdate("third_person", "zh", "我同事刚换了一辆特斯拉，天天在群里炫耀。", "car"),
    NonUpdate("third_person", "en", "My sister just moved to Lisbon for work.", "home"),
    NonUpdate("third_person", "zh", "我表哥在学小号，整栋楼都听得见。", "instrument"),
    NonUpdate("third_person", "en", "My flatmate's gone vegetarian, the fridge is full of tofu.", "diet"),
    NonUpdate("third_person", "zh", "我爸最近迷上了曼联，天天熬夜看球。", "team"),
    NonUpdate("third_person", "en", "My boss just bought a Galaxy S24 and won't shut up about it.", "phone"),
    NonUpdate("negation", "en", "I've never lived in Paris, people always assume I have.", "home"),
    NonUpdate("negation", "zh", "我从来没开过宝马，别听他们瞎说。", "car"),
    NonUpdate("negation", "en", "I'm not into energy drinks, never touch Red Bull.", "favourite_drink"),
    NonUpdate("negation", "zh", "我不是程序员，别老让我修电脑。", "job"),
    NonUpdate("negation", "en", "I'm not a Chelsea fan, no matter what my mates say.", "team"),
    NonUpdate("negation", "zh", "我没在北大读过书，那是我表姐。", "school"),
    NonUpdate("hypothetical", "en", "If I moved to Tokyo I'd finally learn Japanese.", "home"),
    NonUpdate("hypothetical", "zh", "要是我能换台戴尔XPS就好了。", "computer"),
    NonUpdate("hypothetical", "en", "If I were a pilot I'd never be home.", "job"),
    NonUpdate("hypothetical", "zh", "如果我有钱，我就买一辆保时捷。", "car"),
    NonUpdate("hypothetical", "en", "If I had more free time I'd pick up the drums.", "instrument"),
    NonUpdate("hypothetical", "zh", "要是能天天吃火锅该多好。", "favourite_food"),
    NonUpdate("question", "en", "Do you think I should switch to a OnePlus?", "phone"),
    NonUpdate("question", "zh", "你觉得我该不该搬去深圳？", "home"),
    NonUpdate("question", "en", "Is a Framework laptop worth it for someone like me?", "computer"),
    NonUpdate("question", "zh", "你说我要不要改骑自行车上班？", "commute"),
    NonUpdate("question", "en", "Should I try going paleo?", "diet"),
    NonUpdate("question", "zh", "你觉得我适合学钢琴吗？", "instrument"),
    NonUpdate("plan", "en", "I'm thinking about moving to Porto next year.", "home"),
    NonUpdate("plan", "zh", "我打算明年学萨克斯。", "instrument"),
    NonUpdate("plan", "en", "Planning to apply for a PhD at Leiden next autumn.", "school"),
    NonUpdate("plan", "zh", "下个月准备去考驾照，考完想买辆比亚迪。", "car"),
    NonUpdate("plan", "en", "Next spring I might start cycling to work.", "commute"),
    NonUpdate("plan", "zh", "我准备过阵子换个工作，去做销售。", "job"),
)

TUNE = Script(_TUNE_FACTS, _TUNE_UPDATES, _TUNE_NON_UPDATES)


# ---------------------------------------------------------------------------------------------
# HELD_OUT: deliberately different styles (asides, "for the record", narration, 俺/本人/给你交个底).
# Never tune the engine on this half.
# ---------------------------------------------------------------------------------------------

_HELD_OUT_FACTS = (
    # single-valued slots
    Fact(
        "home",
        "en",
        "For the record, home these days is a tiny studio in Montreal, right above a bagel shop.",
        "Montreal",
        _ask("还记得我住哪儿不？", "Remind me, which city is home for me?"),
        slot="home",
    ),
    Fact(
        "job",
        "zh",
        "说起来我是干兽医的，天天跟猫猫狗狗打交道。",
        "兽医",
        _ask("我是干哪一行的？", "What's my line of work?"),
        slot="job",
    ),
    Fact(
        "car",
        "en",
        "Random, but I drive a beat-up Subaru Outback, 200k miles and still going.",
        "Subaru",
        _ask("我平时开哪个牌子的车？", "Which make of car is mine?"),
        slot="car",
    ),
    Fact(
        "phone",
        "zh",
        "顺便提一句，我用的手机是华为Mate 60，信号贼好。",
        "Mate 60",
        _ask("我拿的是哪款手机来着？", "What's the model of my mobile?"),
        slot="phone",
    ),
    Fact(
        "partner",
        "en",
        "Not sure I ever mentioned it, but my husband's name is Tobias. We met at a climbing gym.",
        "Tobias",
        _ask("我丈夫叫什么？", "What's my husband called?"),
        slot="partner",
    ),
    Fact(
        "school",
        "zh",
        "本人目前在浙江大学念大三，学的是土木工程。",
        "浙江大学",
        _ask("我在哪个学校念书？", "Where do I go to university?"),
        slot="school",
    ),
    Fact(
        "diet",
        "en",
        "Fun fact: I've been pescatarian for about four years. Fish yes, meat no.",
        "pescatarian",
        _ask("我吃东西有什么忌口或者饮食方式？", "How would you describe the way I eat?"),
        slot="diet",
    ),
    Fact(
        "favourite_food",
        "zh",
        "要说最爱吃的，那肯定是我妈做的红烧肉，没有之一。",
        "红烧肉",
        _ask("我最爱吃的菜是哪道？", "Which dish do I love more than anything?"),
        slot="favourite_food",
    ),
    Fact(
        "favourite_drink",
        "en",
        "lol I basically live on yerba mate, gourd and metal straw and everything.",
        "yerba mate",
        _ask("我平常最爱喝啥？", "What am I always drinking?"),
        slot="favourite_drink",
    ),
    Fact(
        "team",
        "zh",
        "俺是广州队的铁杆球迷，主场比赛一场不落。",
        "广州队",
        _ask("我是哪个队的球迷？", "Which team am I a die-hard fan of?"),
        slot="team",
    ),
    Fact(
        "instrument",
        "en",
        "Been learning the bagpipes since January and my neighbours hate me for it.",
        "bagpipes",
        _ask("我从一月份开始学的是什么乐器？", "Which instrument have I been practising?"),
        slot="instrument",
    ),
    Fact(
        "computer",
        "zh",
        "给你交个底，我这台电脑是联想拯救者，平时打游戏用。",
        "拯救者",
        _ask("我的电脑是什么型号？", "What kind of computer have I got?"),
        slot="computer",
    ),
    Fact(
        "commute",
        "en",
        "My commute is a forty-minute tram ride, which is when I get my reading done.",
        "tram",
        _ask("我通勤坐的是什么交通工具？", "What do I ride to work?"),
        slot="commute",
    ),
    Fact(
        "hometown",
        "zh",
        "老家在内蒙古呼伦贝尔，是在草原上长大的。",
        "呼伦贝尔",
        _ask("我是在哪儿长大的？", "Which place did I grow up in?"),
        slot="hometown",
    ),
    # other personal facts, Chinese
    Fact(
        "hamster",
        "zh",
        "养了只小仓鼠，给它起名叫芝麻糊。",
        "芝麻糊",
        _ask("我的仓鼠叫啥名？", "What's my hamster's name?"),
    ),
    Fact(
        "birthday",
        "zh",
        "本人的生日在农历八月初九，每年阳历都不一样。",
        "八月初九",
        _ask("我农历生日是哪天？", "What's my birthday on the lunar calendar?"),
    ),
    Fact(
        "pollen",
        "zh",
        "一到春天我就喷嚏不停，花粉过敏太折磨人了。",
        "花粉",
        _ask("我春天老打喷嚏是因为对什么过敏？", "What am I allergic to in spring?"),
    ),
    Fact(
        "brother",
        "zh",
        "我弟弟叫高子轩，在成都做平面设计。",
        "高子轩",
        _ask("我弟弟的名字是？", "What's my little brother called?"),
    ),
    Fact(
        "dark",
        "zh",
        "说来丢人，我怕黑，睡觉必须开着小夜灯。",
        "怕黑",
        _ask("我睡觉为什么要开小夜灯？", "Why do I keep a night light on?"),
    ),
    Fact(
        "succulents",
        "zh",
        "业余时间就爱养多肉，阳台上摆了五十多盆。",
        "多肉",
        _ask("我阳台上养了一大堆什么？", "What do I grow on my balcony?"),
    ),
    Fact(
        "book",
        "zh",
        "《三体》我翻来覆去看了好多遍，是我心里的第一名。",
        "三体",
        _ask("我反复看了很多遍的是哪本书？", "Which book have I reread countless times?"),
    ),
    Fact(
        "kashgar",
        "zh",
        "前阵子去了趟新疆喀什，夜市的烤包子绝了。",
        "喀什",
        _ask("我前阵子去新疆哪个城市玩了？", "Which city in Xinjiang did I visit recently?"),
    ),
    Fact(
        "lunch_buddy",
        "zh",
        "办公室里跟我最铁的是小葛，我俩天天一块儿吃午饭。",
        "小葛",
        _ask("办公室里谁跟我关系最好？", "Who's my closest friend at the office?"),
    ),
    Fact(
        "daughter",
        "zh",
        "闺女叫糖糖，刚满三岁，嘴可甜了。",
        "糖糖",
        _ask("我女儿叫什么？", "What do we call my daughter?"),
    ),
    Fact(
        "wedding_date",
        "zh",
        "我跟老公是二〇一八年情人节那天领的证。",
        "情人节",
        _ask("我和老公是哪天领证的？", "On what day did my husband and I register our marriage?"),
    ),
    Fact(
        "anaemia",
        "zh",
        "体检查出来有轻度贫血，医生让我多补铁。",
        "贫血",
        _ask("体检查出我有什么毛病？", "What did my health check find?"),
    ),
    Fact(
        "eye_surgery",
        "zh",
        "上个月刚做完近视手术，现在不用戴眼镜了。",
        "近视手术",
        _ask("我为什么不戴眼镜了？", "Why don't I wear glasses any more?"),
    ),
    Fact(
        "game",
        "zh",
        "最近沉迷《原神》，每天都要上线做日常。",
        "原神",
        _ask("我每天都要上线玩的游戏是哪个？", "Which game do I log into every day?"),
    ),
    Fact(
        "grandma_age",
        "zh",
        "我外婆今年都九十一了，还自己在院子里种菜。",
        "九十一",
        _ask("我外婆多大年纪了？", "How old is my grandmother?"),
    ),
    Fact(
        "tattoo",
        "zh",
        "左肩上有个小鲸鱼纹身，是毕业那年纹的。",
        "鲸鱼",
        _ask("我肩膀上纹的是什么？", "What is tattooed on my shoulder?"),
    ),
    Fact(
        "singer",
        "zh",
        "我是周深的歌迷，他每首歌我都会唱。",
        "周深",
        _ask("我是哪位歌手的粉丝？", "Whose songs can I sing all of?"),
    ),
    Fact(
        "skipping",
        "zh",
        "每天晚上跳绳两千下，雷打不动。",
        "跳绳",
        _ask("我每晚坚持做什么运动？", "What exercise do I do every night?"),
    ),
    Fact(
        "diving",
        "zh",
        "去年在泰国考下了潜水证，水下的世界太美了。",
        "潜水证",
        _ask("我去年在泰国考了什么证？", "What certificate did I get in Thailand last year?"),
    ),
    # other personal facts, English
    Fact(
        "parrot",
        "en",
        "There's a grey parrot in my living room called Captain Wobbles. He whistles the Mario theme.",
        "Captain Wobbles",
        _ask("我家鹦鹉叫什么名字？", "What's my parrot called?"),
    ),
    Fact(
        "twin",
        "en",
        "I'm a twin, actually. My twin sister Ingrid lives in Oslo.",
        "Ingrid",
        _ask("我的双胞胎姐妹叫什么？", "What's my twin's name?"),
    ),
    Fact(
        "deaf_ear",
        "en",
        "Childhood infection left me deaf in my left ear, so sit on my right.",
        "left ear",
        _ask("我哪只耳朵听不见？", "Which of my ears doesn't work?"),
    ),
    Fact(
        "dad_birthday",
        "en",
        "Dad's birthday falls on Christmas Eve, so he always gets combined presents.",
        "Christmas Eve",
        _ask("我爸爸生日是哪天？", "When's my father's birthday?"),
    ),
    Fact(
        "fencing",
        "en",
        "Back in college I was a competitive fencer, sabre mostly.",
        "fencer",
        _ask("我大学时参加过什么竞技运动？", "What sport did I compete in at college?"),
    ),
    Fact(
        "birding",
        "en",
        "Weekends are for birdwatching. I keep a little notebook of every species I spot.",
        "birdwatching",
        _ask("我周末喜欢干什么？", "How do I spend my weekends?"),
    ),
    Fact(
        "film",
        "en",
        "Spirited Away. That's it, that's my favourite film, no debate.",
        "Spirited Away",
        _ask("我最爱的电影叫什么？", "Which film is my favourite?"),
    ),
    Fact(
        "patagonia",
        "en",
        "Spent three weeks in Patagonia last winter, hiked all the way to Fitz Roy.",
        "Patagonia",
        _ask("我去年冬天去哪里徒步了三个星期？", "Where did I hike for three weeks last winter?"),
    ),
    Fact(
        "pastry_guy",
        "en",
        "There's a guy on my team, Dmitri, who brings homemade pastries every Friday.",
        "Dmitri",
        _ask("每周五带自制点心的同事叫什么？", "Which colleague brings pastries on Fridays?"),
    ),
    Fact(
        "son",
        "en",
        "Our son Oskar starts primary school in September, I'm already emotional.",
        "Oskar",
        _ask("我儿子叫什么名字？", "What's my son's name?"),
    ),
    Fact(
        "blood",
        "en",
        "Blood type's B positive, in case that ever matters.",
        "B positive",
        _ask("我的血型是什么？", "Do you know my blood group?"),
    ),
    Fact(
        "gallbladder",
        "en",
        "I had my gallbladder out in 2021, keyhole surgery, back at work in a week.",
        "gallbladder",
        _ask("我2021年切除了什么器官？", "Which organ did I have removed in 2021?"),
    ),
    Fact(
        "podcast",
        "en",
        "Huge Radiolab fan, I've heard every single episode.",
        "Radiolab",
        _ask("我每一期都听过的播客是哪个？", "Which podcast have I heard every episode of?"),
    ),
    Fact(
        "swim",
        "en",
        "Tuesday mornings I swim at the lido at 5am, rain or shine.",
        "lido",
        _ask("我每周二早上去哪里游泳？", "Where do I swim on Tuesday mornings?"),
    ),
    Fact(
        "aunt",
        "en",
        "My aunt Beatrice runs a small vineyard out in Oregon.",
        "Beatrice",
        _ask("我那个经营葡萄园的姨妈叫什么？", "What's the name of my aunt with the vineyard?"),
    ),
    Fact(
        "colour_blind",
        "en",
        "I'm colour-blind, so reds and greens look the same to me.",
        "colour-blind",
        _ask("我的视力有什么特殊情况？", "What's unusual about my eyesight?"),
    ),
    Fact(
        "welsh",
        "en",
        "On the side I'm learning Welsh, mostly to wind up my Welsh mates.",
        "Welsh",
        _ask("我业余在学哪种语言？", "Which language am I learning on the side?"),
    ),
    Fact(
        "pens",
        "en",
        "I collect vintage fountain pens, about thirty of them now.",
        "fountain pens",
        _ask("我收藏的是什么？", "What do I collect?"),
    ),
    Fact(
        "wedding_place",
        "en",
        "We got married on a beach in Zanzibar, barefoot, best day ever.",
        "Zanzibar",
        _ask("我是在哪里举行婚礼的？", "Where was my wedding held?"),
    ),
)

_HELD_OUT_UPDATES = (
    Update(
        "home",
        "zh",
        "我从蒙特利尔搬到了温哥华，这边十天有八天阴着。",
        "温哥华",
        _ask("我如今住在哪儿？", "So where's home for me now?"),
    ),
    Update(
        "job",
        "en",
        "Plot twist: I left the clinic and I'm a park ranger now. Trees beat paperwork.",
        "park ranger",
        _ask("我目前的职业是什么？", "What's my current occupation?"),
    ),
    Update(
        "car",
        "zh",
        "那辆老斯巴鲁终于报废了，现在开的是一辆五菱宏光，能装能跑。",
        "五菱",
        _ask("我如今开哪款车？", "Which car do I drive at this point?"),
    ),
    Update(
        "phone",
        "en",
        "Phone update: the Huawei's retired, I'm on a Galaxy Z Flip now. Folding it is oddly satisfying.",
        "Z Flip",
        _ask("我现在拿的是什么手机？", "What phone have I got these days?"),
    ),
    Update(
        "partner",
        "zh",
        "跟前夫离婚以后，我现在在和阿哲交往，他人特别温柔。",
        "阿哲",
        _ask("我现在在跟谁谈恋爱？", "Who am I in a relationship with at present?"),
    ),
    Update(
        "school",
        "en",
        "Transferred out over the summer, so as of this term I'm a Simon Fraser student.",
        "Simon Fraser",
        _ask("我现在在哪所大学念书？", "Which university do I attend now?"),
    ),
    Update(
        "diet",
        "zh",
        "饮食方面改成地中海饮食了，橄榄油用得飞快。",
        "地中海饮食",
        _ask("我现在的饮食习惯是什么样的？", "What eating plan do I follow currently?"),
    ),
    Update(
        "favourite_food",
        "en",
        "New favourite food alert: birria. Obsessed. I'd eat it every single day.",
        "birria",
        _ask("我现在最喜欢的食物是什么？", "What food am I obsessed with now?"),
    ),
    Update(
        "favourite_drink",
        "zh",
        "最近迷上了普洱，以前那个马黛茶已经好久没碰了。",
        "普洱",
        _ask("我最近爱喝啥？", "What do I like to drink now?"),
    ),
    Update(
        "team",
        "en",
        "I've switched allegiance. It's the Boston Celtics for me from now on.",
        "Celtics",
        _ask("我如今支持哪支队伍？", "Which team am I cheering for now?"),
    ),
    Update(
        "instrument",
        "zh",
        "风笛不吹了，邻居终于解放了，改学古筝。",
        "古筝",
        _ask("我现在在练哪种乐器？", "Which instrument do I play these days?"),
    ),
    Update(
        "computer",
        "en",
        "The gaming laptop finally gave up; I'm using a Surface Pro these days.",
        "Surface Pro",
        _ask("我现在用的电脑是哪款？", "What's my current computer?"),
    ),
    Update(
        "commute",
        "zh",
        "搬家以后通勤改成了坐城际高铁，每天来回两个小时。",
        "城际高铁",
        _ask("我目前是怎么通勤的？", "What's my commute like now?"),
    ),
    # second changes of three slots
    Update(
        "partner",
        "en",
        "Update on the love front: A-Zhe and I called it quits, and I'm now engaged to Rafael!",
        "Rafael",
        _ask("我现在的另一半是谁？", "Who is my partner at the moment?"),
    ),
    Update(
        "job",
        "zh",
        "护林员干了半年就不干了，现在在做婚礼摄影，周末都排满了。",
        "婚礼摄影",
        _ask("我现在靠什么谋生？", "What do I do for work now?"),
    ),
    Update(
        "commute",
        "en",
        "No longer on the train. A neighbour and I carpool to work now.",
        "carpool",
        _ask("我现在是怎么上班的？", "How do I get to the office these days?"),
    ),
)

_HELD_OUT_NON_UPDATES = (
    NonUpdate(
        "third_person", "en", "My neighbour's kid just got into Oxford, proud parents everywhere.", "school"
    ),
    NonUpdate("third_person", "zh", "闺蜜最近报了个手风琴班，天天在朋友圈晒。", "instrument"),
    NonUpdate("third_person", "en", "Dad's driving a Volvo now, which is hilarious.", "car"),
    NonUpdate("third_person", "zh", "我舅舅刚从青岛搬去了昆明养老。", "home"),
    NonUpdate(
        "third_person", "en", "A mate of mine has gone full carnivore diet, steak three times a day.", "diet"
    ),
    NonUpdate("third_person", "zh", "隔壁老王新买了个华硕笔记本。", "computer"),
    NonUpdate("negation", "zh", "我可从没在西安住过，别搞混了。", "home"),
    NonUpdate("negation", "en", "For the record, I'm not a teacher, my mum is.", "job"),
    NonUpdate("negation", "zh", "咖啡我是一口都不喝的。", "favourite_drink"),
    NonUpdate("negation", "en", "I have never once owned a Dell.", "computer"),
    NonUpdate("negation", "zh", "俺不骑摩托车上班，太危险了。", "commute"),
    NonUpdate("negation", "en", "Nope, I don't support the Yankees. Never have.", "team"),
    NonUpdate("hypothetical", "zh", "假如我住在海边，肯定天天去冲浪。", "home"),
    NonUpdate("hypothetical", "en", "If I could afford it I'd drive a Land Rover Defender.", "car"),
    NonUpdate("hypothetical", "zh", "当初要是学了医，现在说不定是个外科医生。", "job"),
    NonUpdate(
        "hypothetical", "en", "Were I ever to go back to school, I'd study architecture at Delft.", "school"
    ),
    NonUpdate("hypothetical", "zh", "假如可以的话，真想每天都喝一杯鲜榨橙汁。", "favourite_drink"),
    NonUpdate("hypothetical", "en", "In another life I'd be playing the harp.", "instrument"),
    NonUpdate("question", "zh", "你说我是不是该拿iPad当电脑用？", "computer"),
    NonUpdate("question", "en", "Should I move to Melbourne, what do you reckon?", "home"),
    NonUpdate("question", "zh", "要不要试试轻断食？", "diet"),
    NonUpdate("question", "en", "Would it be silly to take up the violin at my age?", "instrument"),
    NonUpdate("question", "zh", "我该不该换一部荣耀手机？", "phone"),
    NonUpdate("question", "en", "Do you reckon I'd enjoy rugby more than basketball?", "team"),
    NonUpdate("plan", "zh", "打算年底考研，目标是复旦。", "school"),
    NonUpdate("plan", "en", "Thinking of trading the car in for a Kia EV6 next year.", "car"),
    NonUpdate("plan", "zh", "下半年准备转行去做产品经理。", "job"),
    NonUpdate("plan", "en", "We might relocate to Auckland at some point.", "home"),
    NonUpdate("plan", "zh", "以后打算骑共享单车上班。", "commute"),
    NonUpdate("plan", "en", "Planning to give veganism a go in January.", "diet"),
)

HELD_OUT = Script(_HELD_OUT_FACTS, _HELD_OUT_UPDATES, _HELD_OUT_NON_UPDATES)

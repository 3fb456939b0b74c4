"""The scripted user's personal facts, their later updates, and the questions that probe them.

Data only. A fact counts as recalled when its ``key`` (case-insensitive) appears in the user's
memories a retrieval shows: the interaction that stated it, or a summary line that still carries
it. Keys are unique: no other fact, update, filler line or reply contains one (the retention
bench checks this before it runs). Half the facts are told in Chinese, half in English; each is
asked in both languages, paraphrased. Ten facts are later updated in a plain statement.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Probe:
    """A question and its language (``"zh"`` or ``"en"``)."""

    text: str
    lang: str


@dataclass(frozen=True)
class Fact:
    """A personal fact as the user states it, with the word that shows it was recalled."""

    name: str
    lang: str
    statement: str
    key: str
    probes: tuple[Probe, ...]


@dataclass(frozen=True)
class Update:
    """A later statement that replaces the value of the fact ``name``."""

    name: str
    lang: str
    statement: str
    key: str
    probes: tuple[Probe, ...]


def _zh(text: str) -> Probe:
    return Probe(text, "zh")


def _en(text: str) -> Probe:
    return Probe(text, "en")


FACTS: tuple[Fact, ...] = (
    Fact("allergy", "zh", "我对花生过敏，吃一点点就会起疹子。", "花生",
         (_en("Is there any food I'm allergic to?"), _zh("我对什么东西过敏来着？"))),
    Fact("cat", "en", "My cat is called Mochi, she's a grey British shorthair.", "Mochi",
         (_zh("我家猫叫什么名字？"), _en("What's the name of my cat?"))),
    Fact("birthday", "zh", "我的生日是三月十七号，双鱼座。", "三月十七",
         (_en("When is my birthday?"), _zh("我哪天过生日？"))),
    Fact("city", "en", "I live in Shanghai, close to Jing'an Temple.", "Shanghai",
         (_zh("我住在哪个城市？"), _en("Which city do I live in?"))),
    Fact("job", "zh", "我在一家游戏公司做UI设计师，天天画界面。", "UI设计",
         (_en("What do I do for a living?"), _zh("我是做什么工作的？"))),
    Fact("daughter", "zh", "我女儿叫朵朵，今年刚上幼儿园。", "朵朵",
         (_en("What's my daughter's name?"), _zh("我女儿叫什么名字？"))),
    Fact("food", "zh", "我最爱吃的是螺蛳粉，一周能吃三次。", "螺蛳粉",
         (_en("What's my favourite food?"), _zh("我最喜欢吃什么？"))),
    Fact("phone", "en", "I use a Google Pixel 7 as my phone.", "Pixel",
         (_zh("我用的是什么手机？"), _en("Which phone do I use?"))),
    Fact("car", "zh", "我开一辆白色的比亚迪汉，开了三年了。", "比亚迪",
         (_en("What car do I drive?"), _zh("我开的是什么车？"))),
    Fact("husband", "en", "My husband's name is Daniel, we met in college.", "Daniel",
         (_zh("我老公叫什么名字？"), _en("What is my husband called?"))),
    Fact("instrument", "zh", "我在学大提琴，每周六上午上课。", "大提琴",
         (_en("What instrument am I learning?"), _zh("我在学什么乐器？"))),
    Fact("drinking", "en", "I never drink alcohol, not even at parties.", "alcohol",
         (_zh("我喝酒吗？"), _en("Do I drink alcohol?"))),
    Fact("blood", "zh", "我的血型是AB型。", "AB型",
         (_en("What's my blood type?"), _zh("我是什么血型？"))),
    Fact("dog", "en", "We also have a dog named Pepper, a border collie.", "Pepper",
         (_zh("我家的狗叫什么？"), _en("What's our dog's name?"))),
    Fact("hometown", "zh", "我老家在哈尔滨，冬天特别冷。", "哈尔滨",
         (_en("Where is my hometown?"), _zh("我是哪里人？"))),
    Fact("marathon", "en", "I'm training for the Berlin Marathon in September.", "Berlin",
         (_zh("我在准备哪个城市的马拉松？"), _en("Which city's marathon am I training for?"))),
    Fact("band", "zh", "我最喜欢的乐队是五月天，看过他们六场演唱会。", "五月天",
         (_en("Which band do I like the most?"), _zh("我最喜欢哪个乐队？"))),
    Fact("son", "en", "My son Oscar just started primary school.", "Oscar",
         (_zh("我儿子叫什么名字？"), _en("What's my son's name?"))),
    Fact("coffee", "zh", "我每天早上都要喝一杯冰美式。", "冰美式",
         (_en("What do I drink every morning?"), _zh("我每天早上喝什么？"))),
    Fact("fear", "en", "I'm terrified of heights, I never go near balconies.", "heights",
         (_zh("我害怕什么？"), _en("What am I afraid of?"))),
    Fact("mother", "en", "My mum lives in Chengdu and runs a small tea shop.", "Chengdu",
         (_zh("我妈妈住在哪里？"), _en("Where does my mother live?"))),
    Fact("anniversary", "zh", "我和老公的结婚纪念日是六月十二号。", "六月十二",
         (_en("When is our wedding anniversary?"), _zh("我们的结婚纪念日是哪天？"))),
    Fact("language", "en", "I'm learning Korean on Duolingo every night.", "Korean",
         (_zh("我每天晚上在学什么语言？"), _en("What language am I learning every night?"))),
    Fact("team", "zh", "我是湖人队的铁杆球迷，每场比赛都看。", "湖人",
         (_en("Which basketball team do I support?"), _zh("我支持哪支球队？"))),
    Fact("school", "zh", "我在浙江大学读在职研究生，周末上课。", "浙江大学",
         (_en("Which university do I study at?"), _zh("我在哪所大学读书？"))),
    Fact("parrot", "zh", "我养了一只鹦鹉，叫豆豆，会说你好。", "鹦鹉",
         (_en("What bird do I keep?"), _zh("我养了什么鸟？"))),
    Fact("sport", "en", "I go to the climbing gym every Tuesday.", "climbing",
         (_zh("我每周二去做什么运动？"), _en("What sport do I do on Tuesdays?"))),
    Fact("laptop", "en", "My laptop is an old ThinkPad X1.", "ThinkPad",
         (_zh("我用的是什么电脑？"), _en("What laptop do I use?"))),
    Fact("sister", "en", "My sister Chloe works as a vet in Sydney.", "Chloe",
         (_zh("我姐姐叫什么名字？"), _en("What's my sister's name?"))),
    Fact("commute", "en", "I cycle to work every day, about eight kilometres.", "cycle to work",
         (_zh("我每天怎么去上班？"), _en("How do I get to work?"))),
)  # fmt: skip

UPDATES: tuple[Update, ...] = (
    Update("city", "zh", "我上个月搬到杭州了，新家离西湖不远。", "杭州",
           (_en("Which city do I live in now?"), _zh("我现在住在哪儿？"))),
    Update("job", "en", "I switched jobs, I'm a data analyst at a bank now.", "data analyst",
           (_zh("我现在做什么工作？"), _en("What's my current job?"))),
    Update("food", "en", "These days my favourite food is sushi, I could eat it every day.", "sushi",
           (_zh("我现在最爱吃什么？"), _en("What food do I like most these days?"))),
    Update("phone", "zh", "我把手机换成iPhone 15了，用着还挺顺手。", "iPhone",
           (_en("What phone do I have now?"), _zh("我现在用什么手机？"))),
    Update("car", "en", "I sold my old car and bought a Tesla Model 3.", "Tesla",
           (_zh("我现在开什么车？"), _en("What car do I drive these days?"))),
    Update("instrument", "en", "I've taken up the ukulele, lessons are on Sunday evenings.", "ukulele",
           (_zh("我现在在学什么乐器？"), _en("Which instrument am I learning now?"))),
    Update("school", "en", "I transferred to Fudan University this term.", "Fudan",
           (_zh("我现在在哪所大学读书？"), _en("Which university am I at now?"))),
    Update("laptop", "zh", "我把电脑换成了MacBook Air，轻多了。", "MacBook",
           (_en("What laptop do I use now?"), _zh("我现在用什么电脑？"))),
    Update("commute", "zh", "我现在改坐地铁上班了，不骑车了。", "改坐地铁",
           (_en("How do I get to work now?"), _zh("我现在怎么上班？"))),
    Update("sport", "zh", "我不攀岩了，现在每周二去打羽毛球。", "羽毛球",
           (_en("What sport do I do on Tuesdays now?"), _zh("我现在每周二做什么运动？"))),
)  # fmt: skip
